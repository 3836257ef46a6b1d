//! Port of framework/plugins/imagelocality/image_locality.go (v1.30.6).

use std::sync::Arc;

use serde_json::Value;

use super::helper::MAX_NODE_SCORE;
use super::names;
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{Ctx, Plugin, PluginSlots, ScorePlugin};
use crate::engine::framework::status::Status;
use crate::engine::version::Version;

const MB: i64 = 1024 * 1024;
const MIN_THRESHOLD: i64 = 23 * MB;
const MAX_CONTAINER_THRESHOLD: i64 = 1000 * MB;

/// ImageLocality.
pub struct ImageLocality;

/// Appends `:latest` to an image without a tag.
pub fn normalized_image_name(name: &str) -> String {
    let colon = name.rfind(':').map_or(-1, |i| i as i64);
    let slash = name.rfind('/').map_or(-1, |i| i as i64);
    if colon <= slash {
        format!("{name}:latest")
    } else {
        name.to_string()
    }
}

fn calculate_priority(sum: i64, containers: usize) -> i64 {
    let max_threshold = MAX_CONTAINER_THRESHOLD * containers as i64;
    let s = if sum < MIN_THRESHOLD {
        MIN_THRESHOLD
    } else {
        sum.min(max_threshold)
    };
    MAX_NODE_SCORE * (s - MIN_THRESHOLD) / (max_threshold - MIN_THRESHOLD)
}

impl Plugin for ImageLocality {
    fn name(&self) -> &'static str {
        names::IMAGE_LOCALITY
    }
}

impl ScorePlugin for ImageLocality {
    fn score(&self, cx: &Ctx<'_>, _: &CycleState, pod: &PodInfo, node: &NodeInfo) -> (i64, Status) {
        let total = cx.snapshot.nodes.len();
        let spec = pod.pod.spec();
        let images = spec
            .init_containers
            .iter()
            .flatten()
            .chain(spec.containers.iter())
            .map(|c| c.image.clone().unwrap_or_default());
        let mut sum = 0i64;
        for img in images {
            let want = normalized_image_name(&img);
            if let Some((_, size)) = node.node.images.iter().find(|(names, _)| names.contains(&want)) {
                let num = cx.snapshot.image_nodes.get(&want).copied().unwrap_or(0);
                let spread = num as f64 / total as f64;
                sum += (*size as f64 * spread) as i64;
            }
        }
        let n = spec.init_containers.as_ref().map_or(0, Vec::len) + spec.containers.len();
        (calculate_priority(sum, n), Status::success())
    }
}

/// Registers ImageLocality.
pub fn register(_: &Value, _: Version) -> Result<PluginSlots, String> {
    Ok(PluginSlots {
        score: Some(Arc::new(ImageLocality)),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_names_and_priority() {
        assert_eq!(normalized_image_name("nginx"), "nginx:latest");
        assert_eq!(normalized_image_name("gcr.io/x/nginx:1.2"), "gcr.io/x/nginx:1.2");
        assert_eq!(
            normalized_image_name("localhost:5000/nginx"),
            "localhost:5000/nginx:latest"
        );
        // image_locality_test.go: one 250MB image on 1 of 1 nodes, one container → (250-23)/(1000-23)
        assert_eq!(calculate_priority(250 * MB, 1), 23);
        assert_eq!(calculate_priority(10 * MB, 1), 0);
        assert_eq!(calculate_priority(2000 * MB, 1), 100);
    }
}
