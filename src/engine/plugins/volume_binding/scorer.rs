//! Port of volumebinding/scorer.go and helper/shape_score.go (v1.30.6): the storage capacity
//! score of the VolumeCapacityPriority feature, a broken-linear function of the utilization of
//! the statically bound PVs, averaged over storage classes.

use std::collections::BTreeMap;

/// A (utilization, score) point with the score already scaled to 0..=100.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ShapePoint {
    /// Utilization in percent.
    pub utilization: i64,
    /// Score.
    pub score: i64,
}

/// Requested and capacity bytes of one storage class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct StorageResource {
    /// Requested bytes.
    pub requested: i64,
    /// PV capacity bytes.
    pub capacity: i64,
}

/// `BuildBrokenLinearFunction`.
pub(crate) fn broken_linear(shape: &[ShapePoint], p: i64) -> i64 {
    for (i, pt) in shape.iter().enumerate() {
        if p <= pt.utilization {
            if i == 0 {
                return shape[0].score;
            }
            let prev = shape[i - 1];
            return prev.score + (pt.score - prev.score) * (p - prev.utilization) / (pt.utilization - prev.utilization);
        }
    }
    shape.last().map_or(0, |s| s.score)
}

/// The scorer built from a shape (`buildScorerFunction`).
#[derive(Clone, Debug)]
pub(crate) struct Scorer {
    shape: Vec<ShapePoint>,
}

impl Scorer {
    /// A scorer for the shape.
    pub(crate) fn new(shape: Vec<ShapePoint>) -> Self {
        Scorer { shape }
    }

    fn class_score(&self, requested: i64, capacity: i64) -> i64 {
        if capacity == 0 || requested > capacity {
            return broken_linear(&self.shape, 100);
        }
        broken_linear(&self.shape, requested * 100 / capacity)
    }

    /// The node score: the classes' scores averaged, rounded half away from zero.
    pub(crate) fn score(&self, classes: &BTreeMap<String, StorageResource>) -> i64 {
        if classes.is_empty() {
            return 0;
        }
        let total: i64 = classes
            .values()
            .map(|r| self.class_score(r.requested, r.capacity))
            .sum();
        #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
        let avg = (total as f64 / classes.len() as f64).round() as i64;
        avg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(hdd: (i64, i64), ssd: Option<(i64, i64)>) -> BTreeMap<String, StorageResource> {
        let mut m = BTreeMap::new();
        m.insert(
            "hdd".to_string(),
            StorageResource {
                requested: hdd.0,
                capacity: hdd.1,
            },
        );
        if let Some((r, c)) = ssd {
            m.insert(
                "ssd".to_string(),
                StorageResource {
                    requested: r,
                    capacity: c,
                },
            );
        }
        m
    }

    #[test]
    fn score_table() {
        // scorer_test.go TestScore. The default shape (0,0),(100,10) scaled by 100/10.
        let default = Scorer::new(vec![
            ShapePoint {
                utilization: 0,
                score: 0,
            },
            ShapePoint {
                utilization: 100,
                score: 100,
            },
        ]);
        for (req, want) in [(0, 0), (30, 30), (50, 50), (100, 100)] {
            assert_eq!(default.score(&classes((req, 100), None)), want, "single class {req}");
        }
        let multi = [
            ((0, 0), 0),
            ((0, 30), 15),
            ((30, 30), 30),
            ((30, 60), 45),
            ((50, 50), 50),
            ((50, 100), 75),
            ((100, 100), 100),
        ];
        for ((h, s), want) in multi {
            assert_eq!(
                default.score(&classes((h, 100), Some((s, 100)))),
                want,
                "default shape {h}/{s}"
            );
        }
        let custom = Scorer::new(vec![
            ShapePoint {
                utilization: 50,
                score: 0,
            },
            ShapePoint {
                utilization: 80,
                score: 30,
            },
            ShapePoint {
                utilization: 100,
                score: 50,
            },
        ]);
        let cases = [
            ((0, 0), 0),
            ((0, 30), 0),
            ((30, 30), 0),
            ((30, 60), 5),
            ((50, 100), 25),
            ((90, 90), 40),
            ((100, 100), 50),
        ];
        for ((h, s), want) in cases {
            assert_eq!(
                custom.score(&classes((h, 100), Some((s, 100)))),
                want,
                "custom shape {h}/{s}"
            );
        }
    }

    #[test]
    fn edges() {
        let s = Scorer::new(vec![
            ShapePoint {
                utilization: 0,
                score: 0,
            },
            ShapePoint {
                utilization: 100,
                score: 100,
            },
        ]);
        assert_eq!(s.score(&classes((10, 0), None)), 100, "no capacity counts as full");
        assert_eq!(s.score(&classes((200, 100), None)), 100, "over capacity counts as full");
        assert_eq!(s.score(&classes((30, 100), Some((45, 100)))), 38, "37.5 rounds up");
        assert_eq!(s.score(&BTreeMap::new()), 0);
    }
}
