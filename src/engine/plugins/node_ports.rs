//! Port of framework/plugins/nodeports/node_ports.go (v1.30.6). 1.33+: the host ports of
//! restartable (sidecar) init containers count too, for the pod and for the node's pods.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::Value;

use super::names;
use crate::engine::framework::cycle_state::CycleState;
use crate::engine::framework::node_info::{NodeInfo, PodInfo};
use crate::engine::framework::plugin::{Ctx, FilterPlugin, Plugin, PluginSlots, PreFilterPlugin, Signing};
use crate::engine::framework::status::Status;
use crate::engine::framework::trace::Fact;
use crate::engine::release::Features;
use crate::model::HostPort;

/// Reason when a host port is taken.
pub(crate) const ERR_REASON: &str = "node(s) didn't have free ports for the requested pod ports";

/// NodePorts.
pub(crate) struct NodePorts;

fn sanitize(p: &HostPort) -> (String, String, i32) {
    let ip = if p.ip.is_empty() {
        "0.0.0.0".to_string()
    } else {
        p.ip.clone()
    };
    let proto = if p.protocol.is_empty() {
        "TCP".to_string()
    } else {
        p.protocol.clone()
    };
    (ip, proto, p.port)
}

/// `HostPortInfo.CheckConflict`.
pub(crate) fn conflicts(used: &[HostPort], want: &HostPort) -> bool {
    if want.port <= 0 {
        return false;
    }
    let (ip, proto, port) = sanitize(want);
    used.iter().map(sanitize).any(|(uip, uproto, uport)| {
        uproto == proto && uport == port && (ip == "0.0.0.0" || uip == "0.0.0.0" || uip == ip)
    })
}

impl Plugin for NodePorts {
    fn name(&self) -> &'static str {
        names::NODE_PORTS
    }

    fn sign_pod(&self, _: &Ctx<'_>, _: &PodInfo) -> Signing {
        Signing::Signed
    }
}

static PRE_FILTER_KEY: &str = "PreFilterNodePorts";

impl PreFilterPlugin for NodePorts {
    fn pre_filter(&self, _: &Ctx<'_>, state: &mut CycleState, pod: &PodInfo) -> (Option<BTreeSet<String>>, Status) {
        if pod.host_ports().next().is_none() {
            return (None, Status::skip());
        }
        state.write(PRE_FILTER_KEY, pod.host_ports().cloned().collect::<Vec<_>>());
        (None, Status::success())
    }

    fn pre_filter_facts(&self, _: &Ctx<'_>, state: &CycleState, _: &PodInfo) -> Vec<Fact> {
        let ports: Vec<String> = state
            .read::<Vec<HostPort>>(PRE_FILTER_KEY)
            .into_iter()
            .flatten()
            .map(|p| match sanitize(p) {
                (ip, proto, port) if ip == "0.0.0.0" => format!("{port}/{proto}"),
                (ip, proto, port) => format!("{ip}:{port}/{proto}"),
            })
            .collect();
        vec![Fact::list("host ports", &ports, "(the plugin skips)")]
    }
}

impl FilterPlugin for NodePorts {
    fn filter(&self, _: &Ctx<'_>, state: &CycleState, _: &PodInfo, node: &NodeInfo) -> Status {
        let Some(want) = state.read::<Vec<HostPort>>(PRE_FILTER_KEY) else {
            return Status::error(format!("reading {PRE_FILTER_KEY:?} from cycleState: not found"));
        };
        if want.iter().any(|p| conflicts(&node.used_ports, p)) {
            return Status::unschedulable(ERR_REASON);
        }
        Status::success()
    }

    /// Reads only the node's ports in use and the pod's host ports.
    fn node_local(&self) -> bool {
        true
    }
}

/// Registers NodePorts.
pub(crate) fn register(_: &Value, _: &Features) -> Result<PluginSlots, String> {
    let p = Arc::new(NodePorts);
    Ok(PluginSlots {
        pre_filter: Some(p.clone()),
        filter: Some(p),
        ..Default::default()
    })
}

#[cfg(test)]
#[allow(clippy::type_complexity)] // case tables
mod tests {
    use super::*;
    use crate::testkit::builders::*;

    fn hp(ip: &str, proto: &str, port: i32) -> HostPort {
        HostPort {
            ip: ip.into(),
            protocol: proto.into(),
            port,
        }
    }

    type Ports = &'static [(&'static str, &'static str, i32)];

    /// node_ports_test.go newPod: "PROTO/IP/PORT" host ports on one container of a pod bound to `host`.
    fn new_pod(host: &str, ports: Ports) -> k8s_openapi::api::core::v1::Pod {
        let b = pod("");
        let b = if host.is_empty() { b } else { b.node(host) };
        b.container_ports(ports).obj()
    }

    fn filter(p: &k8s_openapi::api::core::v1::Pod, existing: Ports) -> FilterRun {
        let snap = snapshot(vec![node("m1").obj()], vec![new_pod("m1", existing)], V1_30);
        run_filter(&plugin(names::NODE_PORTS, Value::Null, V1_30), &snap, p, true)
    }

    /// node_ports_test.go TestNodePorts (the cases that exist in 1.30: ports of regular
    /// containers only).
    #[test]
    fn filter_cases_from_upstream() {
        let conflict = Some(Status::unschedulable(ERR_REASON));
        let cases: &[(&str, Ports, Ports, Option<Status>)] = &[
            (
                "other port",
                &[("UDP", "127.0.0.1", 8080)],
                &[("UDP", "127.0.0.1", 9090)],
                None,
            ),
            (
                "same udp port",
                &[("UDP", "127.0.0.1", 8080)],
                &[("UDP", "127.0.0.1", 8080)],
                conflict.clone(),
            ),
            (
                "same tcp port",
                &[("TCP", "127.0.0.1", 8080)],
                &[("TCP", "127.0.0.1", 8080)],
                conflict.clone(),
            ),
            (
                "different host ip",
                &[("TCP", "127.0.0.1", 8080)],
                &[("TCP", "127.0.0.2", 8080)],
                None,
            ),
            (
                "different protocol",
                &[("UDP", "127.0.0.1", 8080)],
                &[("TCP", "127.0.0.1", 8080)],
                None,
            ),
            (
                "second udp port conflict",
                &[("UDP", "127.0.0.1", 8000), ("UDP", "127.0.0.1", 8080)],
                &[("UDP", "127.0.0.1", 8080)],
                conflict.clone(),
            ),
            (
                "first tcp port conflict",
                &[("TCP", "127.0.0.1", 8001), ("UDP", "127.0.0.1", 8080)],
                &[("TCP", "127.0.0.1", 8001), ("UDP", "127.0.0.1", 8081)],
                conflict.clone(),
            ),
            (
                "first tcp port conflict due to 0.0.0.0 hostIP",
                &[("TCP", "0.0.0.0", 8001)],
                &[("TCP", "127.0.0.1", 8001)],
                conflict.clone(),
            ),
            (
                "TCP hostPort conflict due to 0.0.0.0 hostIP",
                &[("TCP", "10.0.10.10", 8001), ("TCP", "0.0.0.0", 8001)],
                &[("TCP", "127.0.0.1", 8001)],
                conflict.clone(),
            ),
            (
                "second tcp port conflict to 0.0.0.0 hostIP",
                &[("TCP", "127.0.0.1", 8001)],
                &[("TCP", "0.0.0.0", 8001)],
                conflict.clone(),
            ),
            (
                "second different protocol",
                &[("UDP", "127.0.0.1", 8001)],
                &[("TCP", "0.0.0.0", 8001)],
                None,
            ),
            (
                "UDP hostPort conflict due to 0.0.0.0 hostIP",
                &[("UDP", "127.0.0.1", 8001)],
                &[("TCP", "0.0.0.0", 8001), ("UDP", "0.0.0.0", 8001)],
                conflict.clone(),
            ),
        ];
        for (name, want_ports, existing, want) in cases {
            let got = filter(&new_pod("m1", want_ports), existing);
            assert_eq!(
                got.pre_filter.as_ref().map(|p| &p.1),
                Some(&Status::success()),
                "{name}"
            );
            assert_eq!(got.on("m1"), want.as_ref().unwrap_or(&Status::success()), "{name}");
        }
    }

    /// "skip filter", and "non-sidecar initContainer using hostPort": PreFilter says Skip when
    /// no regular container asks for a host port.
    #[test]
    fn pre_filter_skips_pods_without_host_ports() {
        let init_with_port = pod("p")
            .raw_init_container(k8s_openapi::api::core::v1::Container {
                name: "init".into(),
                ports: Some(vec![k8s_openapi::api::core::v1::ContainerPort {
                    container_port: 8001,
                    host_port: Some(8001),
                    protocol: Some("TCP".into()),
                    ..Default::default()
                }]),
                ..Default::default()
            })
            .obj();
        for p in [pod("p").obj(), init_with_port] {
            let got = filter(&p, &[("TCP", "0.0.0.0", 8001)]);
            assert_eq!(got.pre_filter.map(|p| p.1), Some(Status::skip()));
            assert!(got.filter.is_empty());
        }
    }

    /// node_ports_test.go TestPreFilterDisabled: Filter without PreFilter's state is an error.
    #[test]
    fn filter_without_pre_filter_state_is_an_error() {
        let snap = snapshot(vec![node("m1").obj()], vec![], V1_30);
        let got = run_filter(
            &plugin(names::NODE_PORTS, Value::Null, V1_30),
            &snap,
            &pod("p").obj(),
            false,
        );
        assert_eq!(
            got.on("m1"),
            &Status::error("reading \"PreFilterNodePorts\" from cycleState: not found")
        );
    }

    /// node_ports_test.go TestFits.
    #[test]
    fn fits_cases_from_upstream() {
        let cases: &[(&str, Ports, Ports, bool)] = &[
            (
                "non-conflicting ports",
                &[("TCP", "127.0.0.1", 80)],
                &[("TCP", "127.0.0.1", 9090)],
                true,
            ),
            (
                "multiple non-conflicting ports",
                &[
                    ("TCP", "127.0.0.1", 80),
                    ("TCP", "127.0.1.1", 80),
                    ("TCP", "127.0.1.1", 90),
                    ("TCP", "127.0.1.1", 100),
                ],
                &[
                    ("TCP", "127.0.0.1", 9090),
                    ("TCP", "127.0.0.1", 9191),
                    ("TCP", "127.0.1.1", 8080),
                ],
                true,
            ),
            (
                "same ports on different protocols",
                &[("TCP", "127.0.0.1", 80)],
                &[("UDP", "127.0.0.1", 80)],
                true,
            ),
            (
                "conflicting ports",
                &[("TCP", "127.0.0.1", 80)],
                &[("TCP", "127.0.0.1", 80)],
                false,
            ),
            (
                "multiple ports, some conflicting",
                &[
                    ("TCP", "127.0.0.1", 80),
                    ("TCP", "127.0.1.1", 80),
                    ("TCP", "127.0.1.1", 90),
                    ("TCP", "127.0.1.1", 100),
                ],
                &[
                    ("TCP", "127.0.0.1", 9090),
                    ("TCP", "127.0.1.1", 90),
                    ("TCP", "127.0.1.1", 8080),
                ],
                false,
            ),
        ];
        for (name, want_ports, existing, fits) in cases {
            let got = filter(&new_pod("p", want_ports), existing);
            assert_eq!(got.on("m1").is_success(), *fits, "{name}");
        }
    }

    /// framework/types_test.go TestHostPortInfo_Check.
    #[test]
    fn host_port_info_check_cases_from_upstream() {
        let cases: &[(&str, &[(&str, &str, i32)], (&str, &str, i32), bool)] = &[
            (
                "empty check should check 0.0.0.0 and TCP",
                &[("TCP", "127.0.0.1", 80)],
                ("", "", 81),
                false,
            ),
            (
                "empty check should check 0.0.0.0 and TCP (conflicted)",
                &[("TCP", "127.0.0.1", 80)],
                ("", "", 80),
                true,
            ),
            (
                "empty port check should pass",
                &[("TCP", "127.0.0.1", 80)],
                ("", "", 0),
                false,
            ),
            (
                "0.0.0.0 should check all registered IPs",
                &[("TCP", "127.0.0.1", 80)],
                ("TCP", "0.0.0.0", 80),
                true,
            ),
            (
                "0.0.0.0 with different protocol should be allowed",
                &[("UDP", "127.0.0.1", 80)],
                ("TCP", "0.0.0.0", 80),
                false,
            ),
            (
                "0.0.0.0 with different port should be allowed",
                &[
                    ("TCP", "127.0.0.1", 79),
                    ("TCP", "127.0.0.1", 81),
                    ("TCP", "127.0.0.1", 82),
                ],
                ("TCP", "0.0.0.0", 80),
                false,
            ),
            (
                "normal ip should check all registered 0.0.0.0",
                &[("TCP", "0.0.0.0", 80)],
                ("TCP", "127.0.0.1", 80),
                true,
            ),
            (
                "normal ip with different port/protocol should be allowed (0.0.0.0)",
                &[
                    ("TCP", "0.0.0.0", 79),
                    ("UDP", "0.0.0.0", 80),
                    ("TCP", "0.0.0.0", 81),
                    ("TCP", "0.0.0.0", 82),
                ],
                ("TCP", "127.0.0.1", 80),
                false,
            ),
            (
                "normal ip with different port/protocol should be allowed",
                &[
                    ("TCP", "127.0.0.1", 79),
                    ("UDP", "127.0.0.1", 80),
                    ("TCP", "127.0.0.1", 81),
                    ("TCP", "127.0.0.1", 82),
                ],
                ("TCP", "127.0.0.1", 80),
                false,
            ),
        ];
        for (name, added, (proto, ip, port), want) in cases {
            let used: Vec<HostPort> = added.iter().map(|(p, i, n)| hp(i, p, *n)).collect();
            assert_eq!(conflicts(&used, &hp(ip, proto, *port)), *want, "{name}");
        }
    }

    /// A container (or init container when `restart` is Some) with one TCP host port.
    fn port_container(name: &str, port: i32, restart: Option<&str>) -> k8s_openapi::api::core::v1::Container {
        k8s_openapi::api::core::v1::Container {
            name: name.into(),
            restart_policy: restart.map(Into::into),
            ports: Some(vec![k8s_openapi::api::core::v1::ContainerPort {
                container_port: port,
                host_port: Some(port),
                ..Default::default()
            }]),
            ..Default::default()
        }
    }

    /// Upstream #132040 (1.34, and 1.33 patches from v1.33.6 as #133390): `util.GetHostPorts`
    /// adds the host ports of restartable init containers, for the incoming pod and for the
    /// pods on the node; other init containers' ports never count.
    #[test]
    fn sidecar_host_ports_count_from_1_33() {
        let sidecar_pod = |host: &str| {
            let b = pod("").raw_container(port_container("main", 9000, None));
            let b = if host.is_empty() { b } else { b.node(host) };
            b.raw_init_container(port_container("sidecar", 8080, Some("Always")))
                .obj()
        };
        let plain_pod = |host: &str| {
            let b = pod("").raw_container(port_container("main", 8080, None));
            if host.is_empty() { b.obj() } else { b.node(host).obj() }
        };
        let init_pod = |host: &str| {
            let b = pod("").raw_container(port_container("main", 9000, None));
            let b = if host.is_empty() { b } else { b.node(host) };
            b.raw_init_container(port_container("init", 8080, None)).obj()
        };
        let conflict = Status::unschedulable(ERR_REASON);
        // (incoming, existing on m1, verdict up to 1.32, verdict from 1.33)
        let cases = [
            (
                "incoming sidecar vs existing container",
                sidecar_pod(""),
                plain_pod("m1"),
                Status::success(),
                conflict.clone(),
            ),
            (
                "incoming container vs existing sidecar",
                plain_pod(""),
                sidecar_pod("m1"),
                Status::success(),
                conflict.clone(),
            ),
            (
                "plain init containers never hold ports",
                plain_pod(""),
                init_pod("m1"),
                Status::success(),
                Status::success(),
            ),
        ];
        for (name, incoming, existing, want33, want34) in cases {
            // #133390 reached 1.33 in v1.33.6; "1.33" is v1.33.3.
            for (release, want) in [
                ("1.32", &want33),
                ("1.33", &want33),
                ("1.33.6", &want34),
                ("1.34", &want34),
            ] {
                let v: crate::engine::release::Release = release.parse().unwrap();
                let snap = snapshot(vec![node("m1").obj()], vec![existing.clone()], v);
                let got = run_filter(&plugin(names::NODE_PORTS, Value::Null, v), &snap, &incoming, true);
                assert_eq!(got.on("m1"), want, "{name} ({release})");
            }
        }
    }
}
