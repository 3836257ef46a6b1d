//! Shared plugin helpers (framework/plugins/helper): score normalization and taint matching.

use super::super::framework::plugin::NodeScore;
use crate::model::{Taint, Toleration};

/// Highest node score.
pub(crate) const MAX_NODE_SCORE: i64 = 100;

/// `DefaultNormalizeScore`: scales to [0, max] by the highest score; `reverse` flips it.
pub(crate) fn default_normalize_score(max_priority: i64, reverse: bool, scores: &mut [NodeScore<'_>]) {
    let max_count = scores.iter().map(|s| s.score).max().unwrap_or(0).max(0);
    if max_count == 0 {
        if reverse {
            for s in scores.iter_mut() {
                s.score = max_priority;
            }
        }
        return;
    }
    for s in scores.iter_mut() {
        let mut v = max_priority * s.score / max_count;
        if reverse {
            v = max_priority - v;
        }
        s.score = v;
    }
}

/// `FindMatchingUntoleratedTaint`: the first taint (of those `filter` keeps) no toleration
/// covers (`comparison_operators`: TaintTolerationComparisonOperators).
pub(crate) fn find_untolerated_taint<'a>(
    taints: &'a [Taint],
    tolerations: &[Toleration],
    comparison_operators: bool,
    filter: impl Fn(&Taint) -> bool,
) -> Option<&'a Taint> {
    taints
        .iter()
        .filter(|t| filter(t))
        .find(|t| !Toleration::any_tolerates(tolerations, t, comparison_operators))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns(v: &[i64]) -> Vec<NodeScore<'static>> {
        v.iter()
            .enumerate()
            .map(|(i, s)| NodeScore {
                name: format!("n{i}").into(),
                score: *s,
            })
            .collect()
    }

    /// helper/normalize_score_test.go TestDefaultNormalizeScore.
    #[test]
    fn normalize_cases_from_upstream() {
        let cases: &[(&[i64], bool, &[i64])] = &[
            (&[1, 2, 3, 4], false, &[25, 50, 75, 100]),
            (&[1, 2, 3, 4], true, &[75, 50, 25, 0]),
            (&[1000, 10, 20, 30], false, &[100, 1, 2, 3]),
            (&[1000, 10, 20, 30], true, &[0, 99, 98, 97]),
            (&[1, 1, 1, 1], false, &[100, 100, 100, 100]),
            (&[1000, 1, 1, 1], false, &[100, 0, 0, 0]),
            (&[0, 1, 1, 1], true, &[100, 0, 0, 0]),
        ];
        for (input, reverse, want) in cases {
            let mut s = ns(input);
            default_normalize_score(MAX_NODE_SCORE, *reverse, &mut s);
            assert_eq!(
                s.iter().map(|x| x.score).collect::<Vec<_>>(),
                *want,
                "{input:?} {reverse}"
            );
        }
    }

    /// More inputs (derived from the same formula): all zero, reversed all zero.
    #[test]
    fn normalize_more_cases() {
        let cases: &[(&[i64], bool, &[i64])] = &[
            (&[10, 20, 30], false, &[33, 66, 100]),
            (&[10, 20, 30], true, &[67, 34, 0]),
            (&[0, 0, 0], false, &[0, 0, 0]),
            (&[0, 0, 0], true, &[100, 100, 100]),
            (&[1000, 1500, 2000, 2500], false, &[40, 60, 80, 100]),
        ];
        for (input, reverse, want) in cases {
            let mut s = ns(input);
            default_normalize_score(MAX_NODE_SCORE, *reverse, &mut s);
            assert_eq!(
                s.iter().map(|x| x.score).collect::<Vec<_>>(),
                *want,
                "{input:?} {reverse}"
            );
        }
    }
}
