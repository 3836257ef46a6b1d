//! The pod list's reason column: the decisive reason of [`crate::explain::reason`] (shared with
//! `fit`), tested here on the app's summaries.

pub use crate::explain::reason::*;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{App, SourceInfo, SourceKind, load_sync};
    use crate::engine::framework::trace::Explanation;
    use crate::model::ObjectKey;

    fn app_on(name: &str, text: &str) -> App {
        let mut a = App::new(
            SourceInfo {
                kind: SourceKind::Demo,
                name: name.into(),
            },
            false,
        );
        load_sync(&mut a, crate::source::file::load_str(name, text).expect("cluster"));
        a
    }

    /// Every pending pod's (key, column, reason key, upstream line).
    fn reasons(a: &App) -> Vec<(String, String, String, String)> {
        a.cluster
            .pods
            .iter()
            .filter(|p| p.is_pending())
            .map(|p| {
                let s = a.summary(&p.key).expect("explained").as_ref().expect("ok");
                (
                    p.key.to_string(),
                    s.line.clone(),
                    s.reason_key().to_string(),
                    s.upstream.clone(),
                )
            })
            .collect()
    }

    fn column(a: &App, ns: &str, name: &str) -> (String, String) {
        let s = a
            .summary(&ObjectKey::new(ns, name))
            .expect("explained")
            .as_ref()
            .expect("ok");
        (s.line.clone(), s.reason_key().to_string())
    }

    /// The demo's pending pods, one of each kind of decisive reason, as the column shows them
    /// and as `r` compares them.
    #[test]
    fn the_demo_pods_lead_with_their_decisive_reason() {
        let a = app_on("demo.yaml", include_str!("../../fixtures/demo.yaml"));
        let cases = [
            // the general nodes are short of cpu and of memory (neither alone is in the way);
            // the DRA nodes are big enough, and their taint alone keeps the pod off them
            (
                "batch",
                "report-huge",
                "5× untolerated taint(s)",
                "untolerated taint(s)",
            ),
            (
                "ml",
                "finetune-llm",
                "8× Insufficient nvidia.com/gpu",
                "Insufficient nvidia.com/gpu",
            ),
            (
                "ml",
                "train-vit-gpu",
                "10× Insufficient nvidia.com/gpu",
                "Insufficient nvidia.com/gpu",
            ),
            ("shop", "frontend-spread", "8× anti-affinity", "anti-affinity"),
            ("shop", "sidecar-cache", "8× pod affinity", "pod affinity"),
            (
                "shop",
                "cache-eu-north",
                "8× node affinity/selector",
                "node affinity/selector",
            ),
            ("batch", "dedup-job", "7× topology spread", "topology spread"),
            (
                "monitoring",
                "node-exporter-new",
                "1× host port in use",
                "host port in use",
            ),
            (
                "shop",
                "payments-api",
                "8× Insufficient cpu; preempt 1 on pool-general-a3",
                "Insufficient cpu",
            ),
            ("shop", "orders-db-0", "unbound immediate PVC", "unbound immediate PVC"),
            // DRA: most nodes fail node affinity first, but no device there could serve the
            // claims either; the allocator alone refuses the two DRA nodes
            (
                "ml",
                "train-3gpu",
                "2× cannot allocate all claims",
                "cannot allocate all claims",
            ),
            (
                "ml",
                "llm-serve-h200",
                "2× cannot allocate all claims",
                "cannot allocate all claims",
            ),
            (
                "ml",
                "nccl-pair",
                "2× cannot allocate all claims",
                "cannot allocate all claims",
            ),
            ("ml", "ddp-worker-0", "gang 1/4", "gang 1/4"),
            ("ml", "ddp-worker-3", "gang 1/4", "gang 1/4"),
            (
                "shop",
                "checkout-canary",
                "held before the queue: gate acme.io/canary-approval",
                "held before the queue: gate acme.io/canary-approval",
            ),
            (
                "ml",
                "eval-batch",
                "held before the queue: claim ml/eval-gpu missing",
                "held before the queue: claim ml/eval-gpu missing",
            ),
            (
                "batch",
                "spark-driver",
                "unknown scheduler 'volcano'",
                "unknown scheduler 'volcano'",
            ),
            (
                "shop",
                "ledger-writer",
                "fits: would bind to pool-general-c1",
                "fits: would bind to pool-general-c1",
            ),
            (
                "ml",
                "rollout-0",
                "fits: 4 nodes tie (pool-general-a1, pool-general-a2, pool-general-b1, …)",
                "fits: 4 nodes tie (pool-general-a1, pool-general-a2, pool-general-b1, …)",
            ),
        ];
        let wrong: Vec<String> = cases
            .iter()
            .filter_map(|&(ns, name, line, key)| {
                let got = column(&a, ns, name);
                (got != (line.to_string(), key.to_string())).then(|| format!("{ns}/{name}: {got:?}"))
            })
            .collect();
        assert!(wrong.is_empty(), "{wrong:#?}");
        // upstream's whole message stays for the detail line and the pod view
        let s = a
            .summary(&ObjectKey::new("batch", "report-huge"))
            .expect("explained")
            .as_ref()
            .expect("ok");
        assert_eq!(
            s.upstream,
            "0/14 nodes: 1 node(s) were unschedulable, 5 node(s) had untolerated taint(s), 8 Insufficient cpu, \
             8 Insufficient memory. preemption: 0/14 nodes are available: 14 Preemption is not helpful for scheduling"
        );
        assert_eq!(s.nodes, 5);
        let g = a
            .summary(&ObjectKey::new("ml", "ddp-worker-0"))
            .expect("explained")
            .as_ref()
            .expect("ok");
        assert_eq!(
            g.upstream,
            "gang: waits at Permit (Coscheduling) on pool-gpu-a1: 1 of 4 scheduled"
        );
    }

    /// The generator's failing kinds (`kschedtui generate --failing`), each with its reason.
    #[test]
    fn every_generated_failure_kind_has_its_decisive_reason() {
        let spec = crate::source::generate::GenSpec {
            pending: 1,
            failing: crate::source::generate::FAILURE_KINDS.len(),
            ..crate::source::generate::GenSpec::new(12, 120, 5)
        };
        let text = serde_json::to_string(&crate::source::generate::generate(spec)).expect("json");
        let a = app_on("g.json", &text);
        let cases = [
            ("cpu-000000", "11× Insufficient cpu", "Insufficient cpu"),
            ("memory-000001", "11× Insufficient memory", "Insufficient memory"),
            (
                "selector-000002",
                "11× node affinity/selector",
                "node affinity/selector",
            ),
            (
                "gate-000003",
                "held before the queue: gate example.com/approval",
                "held before the queue: gate example.com/approval",
            ),
            (
                "scheduler-000004",
                "unknown scheduler 'custom-scheduler'",
                "unknown scheduler 'custom-scheduler'",
            ),
            ("anti-affinity-000005", "11× anti-affinity", "anti-affinity"),
            (
                "fit-000000",
                "fits: 2 nodes tie (node-00004, node-00010)",
                "fits: 2 nodes tie (node-00004, node-00010)",
            ),
        ];
        for (name, line, key) in cases {
            assert_eq!(column(&a, "bench", name), (line.to_string(), key.to_string()), "{name}");
        }
        let pending = reasons(&a);
        assert_eq!(pending.len(), 1 + 1 + 6);
    }

    #[test]
    fn short_names_the_common_reasons_in_a_few_words() {
        let cases = [
            ("node(s) didn't match pod anti-affinity rules", "anti-affinity"),
            ("node(s) were unschedulable", "cordoned"),
            (
                "node(s) had untolerated taint {dedicated: gpu}",
                "untolerated taint {dedicated: gpu}",
            ),
            (
                "node(s) didn't satisfy plugin(s) [NodeAffinity]",
                "outside [NodeAffinity]'s nodes",
            ),
            (
                "node(s) had volume node affinity conflict",
                "volume node affinity conflict",
            ),
            ("node(s) had something new", "something new"),
            ("Insufficient cpu", "Insufficient cpu"),
        ];
        for (reason, want) in cases {
            assert_eq!(short(reason), want, "{reason}");
        }
    }

    #[test]
    fn upstream_line_strips_the_node_count_prefix() {
        let ex = Explanation {
            pod: ObjectKey::new("default", "p"),
            profile: "default-scheduler".into(),
            release: crate::engine::Release::OLDEST,
            feature_gates: String::new(),
            node_count: 4,
            waiting_for_scheduler: None,
            pre_enqueue: vec![],
            pre_filter: vec![],
            pre_filter_node_names: None,
            nominated_node: None,
            filter: vec![],
            pre_score: vec![],
            score: vec![],
            selected: vec![],
            host_pick: None,
            message: Some("0/4 nodes are available: 2 Insufficient cpu.".into()),
            post_filter: None,
            later_points: vec![],
            notes: vec![],
            binding_cycle: None,
            gang: None,
            dra: None,
            batching: None,
            topology_spread: None,
            sampling: None,
        };
        assert_eq!(upstream_line(&ex), "0/4 nodes: 2 Insufficient cpu");
        assert_eq!(
            decisive(&ex).text,
            "0/4 nodes: 2 Insufficient cpu",
            "no Filter entry: upstream's line"
        );
        let mut ok = ex.clone();
        ok.selected = vec!["node-a".into()];
        assert_eq!(decisive(&ok).text, "fits: would bind to node-a");
        assert_eq!(upstream_line(&ok), "");
        let mut w = ex;
        w.waiting_for_scheduler = Some("custom".into());
        assert_eq!(upstream_line(&w), "no profile serves schedulerName 'custom'");
        assert_eq!(decisive(&w).text, "unknown scheduler 'custom'");
    }
}
