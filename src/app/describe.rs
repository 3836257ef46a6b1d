//! `d`: a pod or a node described as `kubectl describe` lays it out (its labels, columns and
//! `<none>`s, aligned as Go's tabwriter aligns them), from the cluster as it is now, with the
//! FailedScheduling events kept for the pod. Fields kschedtui does not read from a snapshot
//! (container states, volumes' sources, system info) are left out rather than guessed.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as KQuantity;

use super::App;
use super::format::{event_interval, human_duration};
use crate::model::ObjectKey;

/// Lines with `\t` between cells, aligned as Go's `text/tabwriter` does with padding 2: a
/// column's width is taken over each run of consecutive lines that have a cell there.
pub(crate) fn tabwrite(lines: &[String]) -> Vec<String> {
    let cells: Vec<Vec<&str>> = lines.iter().map(|l| l.split('\t').collect()).collect();
    let mut widths: Vec<Vec<usize>> = cells.iter().map(|c| vec![0; c.len().saturating_sub(1)]).collect();
    let columns = cells.iter().map(Vec::len).max().unwrap_or(0);
    for col in 0..columns.saturating_sub(1) {
        let mut i = 0;
        while i < cells.len() {
            if cells[i].len() <= col + 1 {
                i += 1;
                continue;
            }
            let start = i;
            while i < cells.len() && cells[i].len() > col + 1 {
                i += 1;
            }
            let w = cells[start..i]
                .iter()
                .map(|c| c[col].chars().count())
                .max()
                .unwrap_or(0)
                + 2;
            for row in &mut widths[start..i] {
                row[col] = w;
            }
        }
    }
    cells
        .iter()
        .zip(&widths)
        .map(|(c, w)| {
            let mut out = String::new();
            for (j, cell) in c.iter().enumerate() {
                out.push_str(cell);
                if let Some(&w) = w.get(j) {
                    out.extend(std::iter::repeat_n(' ', w.saturating_sub(cell.chars().count())));
                }
            }
            out.trim_end().to_string()
        })
        .collect()
}

/// A table under a section (`Events:`, `Conditions:`) as kubectl prints it: the header, a
/// rule of dashes as long as each header word (four at least: kubectl's `----` under `Age`),
/// then the rows, tab-separated for alignment.
fn table(out: &mut Vec<String>, section: &str, header: &[&str], rows: impl IntoIterator<Item = Vec<String>>) {
    out.push(format!("{section}:"));
    out.push(format!("  {}", header.join("\t")));
    let rule: Vec<String> = header.iter().map(|h| "-".repeat(h.len().max(4))).collect();
    out.push(format!("  {}", rule.join("\t")));
    out.extend(rows.into_iter().map(|r| format!("  {}", r.join("\t"))));
}

/// `Labels:` / `Annotations:` as kubectl prints a map: the first pair beside the label, the
/// others below it, sorted; `<none>` when empty.
fn map_lines(out: &mut Vec<String>, indent: &str, label: &str, m: Option<&BTreeMap<String, String>>) {
    let pairs: Vec<String> = m.into_iter().flatten().map(|(k, v)| format!("{k}={v}")).collect();
    match pairs.split_first() {
        None => out.push(format!("{indent}{label}:\t<none>")),
        Some((first, rest)) => {
            out.push(format!("{indent}{label}:\t{first}"));
            out.extend(rest.iter().map(|p| format!("{indent}\t{p}")));
        }
    }
}

fn quantities(out: &mut Vec<String>, indent: &str, label: &str, m: Option<&BTreeMap<String, KQuantity>>) {
    let Some(m) = m.filter(|m| !m.is_empty()) else { return };
    out.push(format!("{indent}{label}:"));
    out.extend(m.iter().map(|(k, v)| format!("{indent}  {k}:\t{}", v.0)));
}

/// The pod described.
pub(crate) fn pod(app: &App, key: &ObjectKey) -> Option<Vec<String>> {
    let p = app.cluster.pod(key)?;
    let o = &p.obj;
    let meta = &o.metadata;
    let spec = p.spec();
    let status = o.status.as_ref();
    let mut l = vec![
        format!("Name:\t{}", key.name),
        format!("Namespace:\t{}", key.namespace),
        format!("Priority:\t{}", p.priority),
    ];
    if let Some(pc) = spec.priority_class_name.as_deref().filter(|s| !s.is_empty()) {
        l.push(format!("Priority Class Name:\t{pc}"));
    }
    if let Some(sa) = spec.service_account_name.as_deref().filter(|s| !s.is_empty()) {
        l.push(format!("Service Account:\t{sa}"));
    }
    l.push(format!("Node:\t{}", p.node_name.as_deref().unwrap_or("<none>")));
    if let Some(t) = status.and_then(|s| s.start_time.as_ref()) {
        l.push(format!("Start Time:\t{}", t.0));
    }
    map_lines(&mut l, "", "Labels", meta.labels.as_ref());
    map_lines(&mut l, "", "Annotations", meta.annotations.as_ref());
    l.push(format!(
        "Status:\t{}",
        if p.terminating { "Terminating" } else { p.phase() }
    ));
    if let Some(r) = status.and_then(|s| s.reason.as_deref()).filter(|s| !s.is_empty()) {
        l.push(format!("Reason:\t{r}"));
    }
    if let Some(m) = status.and_then(|s| s.message.as_deref()).filter(|s| !s.is_empty()) {
        l.push(format!("Message:\t{m}"));
    }
    l.push(format!(
        "IP:\t{}",
        status.and_then(|s| s.pod_ip.as_deref()).unwrap_or_default()
    ));
    if let Some(n) = p.nominated_node_name() {
        l.push(format!("NominatedNodeName:\t{n}"));
    }
    if let Some(c) = meta
        .owner_references
        .iter()
        .flatten()
        .find(|r| r.controller == Some(true))
    {
        l.push(format!("Controlled By:\t{}/{}", c.kind, c.name));
    }
    let containers = |l: &mut Vec<String>, title: &str, cs: &[core::Container]| {
        if cs.is_empty() {
            return;
        }
        l.push(format!("{title}:"));
        for c in cs {
            l.push(format!("  {}:", c.name));
            l.push(format!("    Image:\t{}", c.image.as_deref().unwrap_or_default()));
            for port in c.ports.iter().flatten() {
                let proto = port.protocol.as_deref().unwrap_or("TCP");
                l.push(format!("    Port:\t{}/{proto}", port.container_port));
                if let Some(h) = port.host_port {
                    l.push(format!("    Host Port:\t{h}/{proto}"));
                }
            }
            let r = c.resources.as_ref();
            quantities(l, "    ", "Limits", r.and_then(|r| r.limits.as_ref()));
            quantities(l, "    ", "Requests", r.and_then(|r| r.requests.as_ref()));
        }
    };
    containers(
        &mut l,
        "Init Containers",
        spec.init_containers.as_deref().unwrap_or_default(),
    );
    containers(&mut l, "Containers", &spec.containers);
    if let Some(gates) = spec.scheduling_gates.as_ref().filter(|g| !g.is_empty()) {
        l.push("Scheduling Gates:".into());
        l.extend(gates.iter().map(|g| format!("  {}", g.name)));
    }
    let conditions = status.and_then(|s| s.conditions.as_ref()).filter(|c| !c.is_empty());
    if let Some(cs) = conditions {
        l.push("Conditions:".into());
        l.push("  Type\tStatus".into());
        l.extend(cs.iter().map(|c| format!("  {} \t{} ", c.type_, c.status)));
    }
    if let Some(vs) = spec.volumes.as_ref().filter(|v| !v.is_empty()) {
        l.push("Volumes:".into());
        for v in vs {
            l.push(format!("  {}:", v.name));
            if let Some(c) = &v.persistent_volume_claim {
                l.push(
                    "    Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)"
                        .into(),
                );
                l.push(format!("    ClaimName:\t{}", c.claim_name));
                l.push(format!("    ReadOnly:\t{}", c.read_only.unwrap_or(false)));
            } else if v.ephemeral.is_some() {
                l.push("    Type:\tEphemeralVolume (an inline specification for a volume that gets created and deleted with the pod)".into());
            }
        }
    }
    // as kubectl: status.qosClass, else the class computed from the containers' requests and
    // limits (a pending pod has no status.qosClass until the API server sets it)
    let qos = match status.and_then(|s| s.qos_class.as_deref()) {
        Some(q) if !q.is_empty() => q,
        _ => match crate::engine::deschedule::pods::qos(p) {
            crate::engine::deschedule::pods::Qos::BestEffort => "BestEffort",
            crate::engine::deschedule::pods::Qos::Burstable => "Burstable",
            crate::engine::deschedule::pods::Qos::Guaranteed => "Guaranteed",
        },
    };
    l.push(format!("QoS Class:\t{qos}"));
    let sel = spec.node_selector.as_ref().filter(|m| !m.is_empty());
    match sel {
        None => l.push("Node-Selectors:\t<none>".into()),
        Some(m) => {
            let v: Vec<String> = m.iter().map(|(k, v)| format!("{k}={v}")).collect();
            l.push(format!("Node-Selectors:\t{}", v[0]));
            l.extend(v[1..].iter().map(|s| format!("\t{s}")));
        }
    }
    let tols: Vec<String> = spec
        .tolerations
        .iter()
        .flatten()
        .map(|t| {
            let mut s = t.key.clone().unwrap_or_default();
            if let Some(v) = t.value.as_deref().filter(|v| !v.is_empty()) {
                s.push_str(&format!("={v}"));
            }
            if let Some(e) = t.effect.as_deref().filter(|e| !e.is_empty()) {
                s.push_str(&format!(":{e}"));
            }
            if t.operator.as_deref() == Some("Exists") && t.value.as_deref().unwrap_or_default().is_empty() {
                s.push_str(if s.is_empty() { "op=Exists" } else { " op=Exists" });
            }
            if let Some(secs) = t.toleration_seconds {
                s.push_str(&format!(" for {secs}s"));
            }
            s
        })
        .collect();
    match tols.split_first() {
        None => l.push("Tolerations:\t<none>".into()),
        Some((first, rest)) => {
            l.push(format!("Tolerations:\t{first}"));
            l.extend(rest.iter().map(|t| format!("\t{t}")));
        }
    }
    let mut events = app.cluster.scheduling_events_of(p);
    events.sort_by_key(|e| e.last);
    if events.is_empty() {
        let none = match &app.cluster.events_unreadable {
            Some(why) => format!("<unknown: events could not be read: {why}>"),
            None => "<none>".into(),
        };
        l.push(format!("Events:\t{none}"));
    } else {
        let rows = events.iter().map(|e| {
            vec![
                e.type_.clone(),
                e.reason.clone(),
                event_interval(e, app.now),
                e.component.clone(),
                e.message.trim().to_string(),
            ]
        });
        table(&mut l, "Events", &["Type", "Reason", "Age", "From", "Message"], rows);
    }
    Some(tabwrite(&l))
}

/// The node described.
pub(crate) fn node(app: &App, name: &str) -> Option<Vec<String>> {
    let n = app.cluster.node(name)?;
    let meta = &n.obj.metadata;
    let mut l = vec![format!("Name:\t{name}")];
    let roles: Vec<&str> = n
        .labels
        .keys()
        .filter_map(|k| k.strip_prefix("node-role.kubernetes.io/"))
        .collect();
    l.push(format!(
        "Roles:\t{}",
        if roles.is_empty() {
            "<none>".to_string()
        } else {
            roles.join(",")
        }
    ));
    map_lines(&mut l, "", "Labels", meta.labels.as_ref());
    map_lines(&mut l, "", "Annotations", meta.annotations.as_ref());
    if let Some(t) = &meta.creation_timestamp {
        l.push(format!("CreationTimestamp:\t{}", t.0));
    }
    let taints: Vec<String> = n
        .taints
        .iter()
        .map(|t| {
            if t.value.is_empty() {
                format!("{}:{}", t.key, t.effect)
            } else {
                format!("{}={}:{}", t.key, t.value, t.effect)
            }
        })
        .collect();
    match taints.split_first() {
        None => l.push("Taints:\t<none>".into()),
        Some((first, rest)) => {
            l.push(format!("Taints:\t{first}"));
            l.extend(rest.iter().map(|t| format!("\t{t}")));
        }
    }
    l.push(format!("Unschedulable:\t{}", n.unschedulable));
    let status = n.obj.status.as_ref();
    if let Some(cs) = status.and_then(|s| s.conditions.as_ref()).filter(|c| !c.is_empty()) {
        let rows = cs.iter().map(|c| {
            vec![
                c.type_.clone(),
                c.status.clone(),
                c.reason.clone().unwrap_or_default(),
                c.message.clone().unwrap_or_default(),
            ]
        });
        table(&mut l, "Conditions", &["Type", "Status", "Reason", "Message"], rows);
    }
    quantities(&mut l, "", "Capacity", status.and_then(|s| s.capacity.as_ref()));
    quantities(&mut l, "", "Allocatable", status.and_then(|s| s.allocatable.as_ref()));
    let usage = app.usage.get(name);
    let pods: Vec<_> = usage.map(|u| u.pods_iter().collect()).unwrap_or_default();
    l.push(format!("Non-terminated Pods:\t({} in total)", pods.len()));
    l.push("  Namespace\tName\tCPU Requests\tMemory Requests\tAge".into());
    l.push("  ---------\t----\t------------\t---------------\t---".into());
    let share = |v: i64, a: i64| {
        if a > 0 {
            format!(" ({}%)", v * 100 / a)
        } else {
            String::new()
        }
    };
    for p in &pods {
        let req = app.features.requests_of(p);
        let r = &req.resource;
        l.push(format!(
            "  {}\t{}\t{}{}\t{}{}\t{}",
            p.key.namespace,
            p.key.name,
            super::format::cpu(r.milli_cpu),
            share(r.milli_cpu, n.allocatable.milli_cpu),
            super::format::bytes(r.memory),
            share(r.memory, n.allocatable.memory),
            match (p.creation().map(|t| t.as_second()), app.now) {
                (Some(c), Some(now)) => human_duration(now - c),
                _ => "<unknown>".into(),
            }
        ));
    }
    if let Some(u) = usage {
        l.push("Allocated resources:".into());
        l.push("  (Total limits may be over 100 percent, i.e., overcommitted.)".into());
        l.push("  Resource\tRequests".into());
        l.push("  --------\t--------".into());
        l.push(format!(
            "  cpu\t{}{}",
            super::format::cpu(u.requested.milli_cpu),
            share(u.requested.milli_cpu, n.allocatable.milli_cpu)
        ));
        l.push(format!(
            "  memory\t{}{}",
            super::format::bytes(u.requested.memory),
            share(u.requested.memory, n.allocatable.memory)
        ));
    }
    l.push("Events:\t<not kept: kschedtui reads only the FailedScheduling events of pods>".into());
    Some(tabwrite(&l))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabwrite_aligns_each_run_of_lines_as_go_does() {
        let l: Vec<String> = [
            "Name:\tweb-1",
            "Priority Class Name:\thigh",
            "Containers:",
            "  web:",
            "    Image:\tnginx",
            "    Requests:",
            "      cpu:\t1",
            "      memory:\t1Gi",
            "QoS Class:\tBurstable",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            tabwrite(&l),
            [
                "Name:                 web-1",
                "Priority Class Name:  high",
                "Containers:",
                "  web:",
                "    Image:  nginx",
                "    Requests:",
                "      cpu:     1",
                "      memory:  1Gi",
                // the same run as the lines above it: Go aligns it with them (kubectl's wide gap)
                "QoS Class:     Burstable",
            ]
        );
    }
}
