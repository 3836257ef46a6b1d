//! Port of framework/plugins/imagelocality/image_locality.go (v1.30.6). From 1.36
//! ([`Change::ImageLocalityCountsImageVolumes`]) the images of image volumes add to the sum,
//! but the threshold still counts containers only.

use std::sync::Arc;

use serde_json::Value;

use super::helper::MAX_NODE_SCORE;
use super::names;
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use smallvec::SmallVec;

use crate::engine::framework::index::images::Image;
use crate::engine::framework::plugin::{Ctx, Plugin, PluginSlots, ScorePlugin, ScoreResult, Signing, score_each};
use crate::engine::framework::status::Status;
use crate::engine::release::{Change, Features};
use crate::model::image_name_hash;

const MB: i64 = 1024 * 1024;
const MIN_THRESHOLD: i64 = 23 * MB;
const MAX_CONTAINER_THRESHOLD: i64 = 1000 * MB;

/// ImageLocality.
pub(crate) struct ImageLocality {
    /// Image volumes count ([`Change::ImageLocalityCountsImageVolumes`]).
    image_volumes: bool,
    /// ...in the threshold too ([`Change::ImageLocalityThresholdCountsImageVolumes`]).
    volumes_in_threshold: bool,
}

/// Appends `:latest` to an image without a tag.
pub(crate) fn normalized_image_name(name: &str) -> String {
    let colon = name.rfind(':').map_or(-1, |i| i as i64);
    let slash = name.rfind('/').map_or(-1, |i| i as i64);
    if colon <= slash {
        format!("{name}:latest")
    } else {
        name.to_string()
    }
}

/// A name with its `image_name_hash`.
fn hashed(name: String) -> (String, u64) {
    let h = image_name_hash(&name);
    (name, h)
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

    fn sign_pod(&self, _: &Ctx<'_>, _: &PodInfo) -> Signing {
        Signing::Signed
    }
}

/// One image the pod wants: its normalized name, hash, and the snapshot's entry for it (None
/// when no node lists it).
type Wanted<'a> = (String, u64, Option<&'a Image>);

impl ImageLocality {
    /// The pod's images (containers', then image volumes' when they count) looked up in the
    /// snapshot's index once (for a piece of nodes), and how many containers the threshold
    /// counts.
    fn wanted<'a>(&self, cx: &Ctx<'a>, pod: &PodInfo) -> (SmallVec<[Wanted<'a>; 2]>, usize) {
        let spec = pod.pod.spec();
        let containers = spec
            .init_containers
            .iter()
            .flatten()
            .chain(spec.containers.iter())
            .map(|c| c.image.as_deref().unwrap_or_default());
        let volumes = spec
            .volumes
            .iter()
            .flatten()
            .filter(|_| self.image_volumes)
            .filter_map(|v| v.image.as_ref())
            .map(|i| i.reference.as_deref().unwrap_or_default());
        let index = &cx.snapshot.index.images;
        let wanted = containers
            .chain(volumes)
            .map(|name| {
                let (name, hash) = hashed(normalized_image_name(name));
                let image = index.image(&name, hash);
                (name, hash, image)
            })
            .collect();
        let mut n = spec.init_containers.as_ref().map_or(0, Vec::len) + spec.containers.len();
        if self.volumes_in_threshold {
            // 1.37 (#138951): `sumImageScores` counts every image source
            n += spec.volumes.iter().flatten().filter(|v| v.image.is_some()).count();
        }
        (wanted, n)
    }

    /// The node's score for the images `wanted`, `containers` counted by the threshold.
    fn score_with(cx: &Ctx<'_>, wanted: &[Wanted<'_>], containers: usize, node: &NodeInfo) -> i64 {
        let total = cx.snapshot.nodes.len();
        let at = cx.snapshot.indexed(node);
        let mut sum = 0i64;
        for (want, hash, image) in wanted {
            // The node's ImageStates map is built entry by entry, so for a name listed by two
            // entries the later one wins (Node::image_size, ImageIndex).
            if let Some((size, num)) = at.image(want, *hash, *image) {
                let spread = num as f64 / total as f64;
                sum += (size as f64 * spread) as i64;
            }
        }
        calculate_priority(sum, containers)
    }
}

impl ScorePlugin for ImageLocality {
    /// Reads only the node's images and how many of the snapshot's (unchanging) nodes list each.
    fn node_local(&self) -> bool {
        true
    }

    fn score(&self, cx: &Ctx<'_>, _: &CycleState, pod: &PodInfo, node: &NodeInfo) -> ScoreResult {
        let (wanted, containers) = self.wanted(cx, pod);
        Ok(Self::score_with(cx, &wanted, containers, node))
    }

    /// The pod's images are looked up in the index once for the piece, not once per node.
    fn score_nodes(
        &self,
        cx: &Ctx<'_>,
        _: &CycleState,
        pod: &PodInfo,
        nodes: &[&NodeInfo],
        out: &mut [i64],
    ) -> Result<(), Box<Status>> {
        let (wanted, containers) = self.wanted(cx, pod);
        score_each(nodes, out, |node| Self::score_with(cx, &wanted, containers, node))
    }
}

/// Registers ImageLocality.
pub(crate) fn register(_: &Value, features: &Features) -> Result<PluginSlots, String> {
    Ok(PluginSlots {
        score: Some(Arc::new(ImageLocality {
            image_volumes: features.has(Change::ImageLocalityCountsImageVolumes),
            volumes_in_threshold: features.has(Change::ImageLocalityThresholdCountsImageVolumes),
        })),
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

    use crate::testkit::builders::*;

    #[test]
    fn image_names_hash_as_fnv1a_64() {
        // the published FNV-1a test vectors
        assert_eq!(image_name_hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(image_name_hash("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(image_name_hash("foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn a_node_image_listed_by_two_entries_has_the_later_entrys_size() {
        let n = crate::model::Node::from_obj(node_with(
            "n",
            &[(&["b:1", "a:1"], 10), (&["c:1"], 20), (&["a:1", "d:1", "a:1"], 30)],
        ))
        .unwrap();
        assert_eq!(n.image_size("a:1"), Some(30));
        assert_eq!(n.image_size("b:1"), Some(10));
        assert_eq!(n.image_size("c:1"), Some(20));
        assert_eq!(n.image_size("d:1"), Some(30));
        assert_eq!(n.image_size("e:1"), None);
        assert_eq!(n.image_size(""), None);
    }

    fn node_with(name: &str, images: &[(&[&str], i64)]) -> k8s_openapi::api::core::v1::Node {
        images
            .iter()
            .fold(node(name), |b, (names, size)| b.image(names, *size))
            .obj()
    }

    /// image_locality_test.go TestImageLocalityPriority (Score only, no normalization).
    #[test]
    fn score_cases_from_upstream() {
        let node_40_300_2000: &[(&[&str], i64)] = &[
            (&["gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"], 40 * MB),
            (&["gcr.io/300:latest", "gcr.io/300:v1"], 300 * MB),
            (&["gcr.io/2000:latest"], 2000 * MB),
        ];
        let node_250_10: &[(&[&str], i64)] = &[
            (&["gcr.io/250:latest"], 250 * MB),
            (&["gcr.io/10:latest", "gcr.io/10:v1"], 10 * MB),
        ];
        let node_600_40_900: &[(&[&str], i64)] = &[
            (&["gcr.io/600:latest"], 600 * MB),
            (&["gcr.io/40:latest"], 40 * MB),
            (&["gcr.io/900:latest"], 900 * MB),
        ];
        let node_300_600_900: &[(&[&str], i64)] = &[
            (&["gcr.io/300:latest"], 300 * MB),
            (&["gcr.io/600:latest"], 600 * MB),
            (&["gcr.io/900:latest"], 900 * MB),
        ];
        let node_4000_30: &[(&[&str], i64)] = &[(&["gcr.io/4000:latest"], 4000 * MB), (&["gcr.io/30:latest"], 30 * MB)];
        let node_20_30_40: &[(&[&str], i64)] = &[
            (&["gcr.io/20:latest"], 20 * MB),
            (&["gcr.io/30:latest"], 30 * MB),
            (&["gcr.io/40:latest"], 40 * MB),
        ];
        let no_images: &[(&[&str], i64)] = &[];
        let images = |v: &[&str]| v.iter().fold(pod("p"), |b, i| b.image(i));
        #[allow(clippy::type_complexity)]
        let cases: Vec<(&str, k8s_openapi::api::core::v1::Pod, Vec<&[(&[&str], i64)]>, Vec<i64>)> = vec![
            (
                "two images spread on two nodes, prefer the larger image one",
                images(&["gcr.io/40", "gcr.io/250"]).obj(),
                vec![node_40_300_2000, node_250_10],
                vec![0, 5],
            ),
            (
                "two images on one node, prefer this node",
                images(&["gcr.io/40", "gcr.io/300"]).obj(),
                vec![node_40_300_2000, node_250_10],
                vec![7, 0],
            ),
            (
                "if exceed limit, use limit",
                images(&["gcr.io/10", "gcr.io/4000"]).obj(),
                vec![node_4000_30, node_250_10],
                vec![100, 0],
            ),
            (
                "if exceed limit, use limit (with node which has no images present)",
                images(&["gcr.io/10", "gcr.io/4000"]).obj(),
                vec![node_4000_30, node_250_10, no_images],
                vec![66, 0, 0],
            ),
            (
                "pod with multiple large images, node2 is preferred",
                images(&["gcr.io/300", "gcr.io/600", "gcr.io/900"]).obj(),
                vec![node_600_40_900, node_300_600_900, no_images],
                vec![32, 36, 0],
            ),
            (
                "pod with multiple small images",
                images(&["gcr.io/30", "gcr.io/40"]).obj(),
                vec![node_20_30_40, node_4000_30],
                vec![1, 0],
            ),
            (
                "include InitContainers: two images spread on two nodes, prefer the larger image one",
                images(&["gcr.io/30"]).init_image("gcr.io/300").obj(),
                vec![node_40_300_2000, node_20_30_40],
                vec![6, 0],
            ),
        ];
        for (name, p, nodes, want) in cases {
            let nodes = nodes
                .iter()
                .enumerate()
                .map(|(i, imgs)| node_with(&format!("node{}", i + 1), imgs))
                .collect();
            let snap = snapshot(nodes, vec![], V1_30);
            let slots = plugin(names::IMAGE_LOCALITY, Value::Null, V1_30);
            let got = run_score(&slots, &snap, &p, true);
            assert_eq!(got.raw, want, "{name}");
            // a copy of a node (as preemption's dry runs make) scores as the node itself
            let cx = Ctx { snapshot: &snap };
            let pi = pod_info(&p, &*snap.features);
            let copies: Vec<i64> = snap
                .nodes
                .iter()
                .map(|n| {
                    let copy = n.clone();
                    assert_eq!(snap.position_of(&copy), None);
                    let sp = slots.score.as_ref().expect("score");
                    sp.score(&cx, &CycleState::default(), &pi, &copy).expect("Score")
                })
                .collect();
            assert_eq!(copies, want, "{name}, copies of the nodes");
        }
    }

    /// 1.36 (#130231): an image volume's image adds to the sum, the threshold stays at one
    /// container's: 40 MB alone → 1; 40 + 300 MB → 100 × (340 − 23) / (1000 − 23) = 32.
    #[test]
    fn image_volumes_count_from_1_36_and_in_the_threshold_from_1_37() {
        let mut p = pod("p").image("gcr.io/40").obj();
        p.spec.as_mut().unwrap().volumes = Some(vec![k8s_openapi::api::core::v1::Volume {
            name: "models".into(),
            image: Some(k8s_openapi::api::core::v1::ImageVolumeSource {
                reference: Some("gcr.io/300".into()),
                pull_policy: None,
            }),
            ..Default::default()
        }]);
        let n = node("n")
            .image(&["gcr.io/40:latest"], 40 * MB)
            .image(&["gcr.io/300:latest"], 300 * MB)
            .obj();
        // 1.37 (#138951): the threshold is two images' (1000 MB each): 100 × (340 − 23) /
        // (2000 − 23) = 16
        for (minor, want) in [(35, 1), (36, 32), (37, 16)] {
            let v = crate::engine::release::Release::at(minor);
            let snap = snapshot(vec![n.clone()], vec![], v);
            let got = run_score(&plugin(names::IMAGE_LOCALITY, Value::Null, v), &snap, &p, true);
            assert_eq!(got.raw, vec![want], "1.{minor}");
        }
    }

    /// #138951's worked example: one container whose image is not on the node and a 500 MiB
    /// image volume on every node: 1.36 → 100 × 477 / 977 = 48; 1.37 → 100 × 477 / 1977 = 24.
    #[test]
    fn an_image_volume_no_longer_scores_above_a_container_image_at_1_37() {
        let mut p = pod("p").image("gcr.io/absent").obj();
        p.spec.as_mut().unwrap().volumes = Some(vec![k8s_openapi::api::core::v1::Volume {
            name: "weights".into(),
            image: Some(k8s_openapi::api::core::v1::ImageVolumeSource {
                reference: Some("gcr.io/weights".into()),
                pull_policy: None,
            }),
            ..Default::default()
        }]);
        let n = node("n").image(&["gcr.io/weights:latest"], 500 * MB).obj();
        for (minor, want) in [(36, 48), (37, 24)] {
            let v = crate::engine::release::Release::at(minor);
            let snap = snapshot(vec![n.clone()], vec![], v);
            let got = run_score(&plugin(names::IMAGE_LOCALITY, Value::Null, v), &snap, &p, true);
            assert_eq!(got.raw, vec![want], "1.{minor}");
        }
    }

    /// image_locality_test.go TestNormalizedImageName.
    #[test]
    fn normalized_image_name_cases_from_upstream() {
        // getImageFakeDigest("root"): the sha256 of "root".
        let digest = "sha256:4813494d137e1631bba301d5acab6e7bb7aa74ce1185d456565ef51d737677b2";
        let with_digest = format!("root@{digest}");
        for (input, want) in [
            ("root", "root:latest"),
            ("gcr.io:5000/root", "gcr.io:5000/root:latest"),
            ("root:tag", "root:tag"),
            (with_digest.as_str(), with_digest.as_str()),
        ] {
            assert_eq!(normalized_image_name(input), want, "{input}");
        }
    }

    /// A name listed by two image entries takes the later entry's size, as the node's
    /// ImageStates map is filled entry by entry.
    #[test]
    fn later_image_entry_wins_for_a_duplicate_name() {
        let n = node("n").image(&["img:1"], 100 * MB).image(&["img:1"], 900 * MB).obj();
        let snap = snapshot(vec![n], vec![], V1_30);
        let got = run_score(
            &plugin(names::IMAGE_LOCALITY, Value::Null, V1_30),
            &snap,
            &pod("p").image("img:1").obj(),
            true,
        );
        assert_eq!(got.raw, vec![calculate_priority(900 * MB, 1)]);
    }
}
