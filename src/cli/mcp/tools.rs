//! The MCP server's tools as data: name, description, input schema, output schema (JSON
//! Schema, the shapes of docs/explain-json.md, docs/queue-json.md, docs/simulate-json.md,
//! docs/deschedule-json.md, docs/fit-json.md and docs/mcp.md), and whether the tool writes. The output schemas
//! name the keys every answer has and their types; they allow keys beyond those (the
//! contract's readers ignore keys they do not know).

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use crate::engine::Framework;
use crate::engine::framework::status::Code;
use crate::engine::trace::{Explanation, Outcome};

/// One tool.
pub struct Def {
    /// Its name.
    pub name: &'static str,
    /// A title for people.
    pub title: &'static str,
    /// What it does, for the model.
    pub description: &'static str,
    /// Its arguments.
    pub input: Value,
    /// Its structured content.
    pub output: Value,
    /// It writes to the cluster.
    pub write: bool,
}

impl Def {
    /// The tool as the client lists it.
    pub fn tool(self) -> Tool {
        let object = |v: Value| match v {
            Value::Object(m) => Arc::new(m),
            _ => Arc::new(JsonObject::new()),
        };
        Tool::new(self.name, self.description, object(self.input))
            .with_title(self.title)
            .with_raw_output_schema(object(self.output))
            .with_annotations(
                ToolAnnotations::with_title(self.title)
                    .read_only(!self.write)
                    .destructive(self.write)
                    .idempotent(!self.write)
                    .open_world(false),
            )
    }
}

/// Every tool, the write tools only when writes are allowed.
pub fn list(allow_writes: bool) -> Vec<Def> {
    let mut v = vec![
        Def {
            name: "list_pods",
            title: "List pods",
            description: "The cluster's pods by namespace and name (by default only the pending ones), each with its outcome and the engine's one-line verdict. Filter by namespace and by a piece of the verdict (reason, case-insensitive: 'Insufficient cpu', 'taint', 'gate').",
            input: object(
                json!({
                    "namespace": {"type": "string", "description": "Only this namespace's pods."},
                    "pendingOnly": {"type": "boolean", "description": "Only pending pods (default true)."},
                    "reason": {"type": "string", "description": "Only pods whose verdict contains this text (case-insensitive)."}
                }),
                &[],
            ),
            output: object(
                json!({
                    "count": {"type": "integer", "minimum": 0},
                    "pods": {"type": "array", "items": object(json!({
                        "pod": pod_ref(),
                        "phase": {"type": "string"},
                        "node": {"type": ["string", "null"]},
                        "pending": {"type": "boolean"},
                        "outcome": {"anyOf": [outcome(), {"type": "null"}]},
                        "verdict": {"type": ["string", "null"]}
                    }), &["pod", "phase", "node", "pending", "outcome", "verdict"])}
                }),
                &["count", "pods"],
            ),
            write: false,
        },
        Def {
            name: "explain_pod",
            title: "Explain a pod",
            description: "Why a pod is (or is not) schedulable, as kube-scheduler decides it: the document `kschedtui explain POD -o json` writes (docs/explain-json.md): outcome, message (the PodScheduled condition's text), every plugin per extension point, every node's Filter verdict and scores, preemption, the binding cycle, gangs, DRA, the fix hints (`fixes`) and what the cluster itself recorded (`cluster`). With `node`, the filter and score lists hold that node only.",
            input: object(
                json!({
                    "pod": {"type": "string", "description": "NAMESPACE/NAME (NAME alone: the default namespace)."},
                    "node": {"type": "string", "description": "Keep only this node in filter and score."},
                    "startNode": {"type": "integer", "minimum": 0, "description": "kube-scheduler's start index in its node list (nextStartNodeIndex; zones interleaved): on 100 nodes and more only the feasible nodes percentageOfNodesToScore's search finds from there are scored, as `explain --start-node`; `sampling` says what was found and the next index."}
                }),
                &["pod"],
            ),
            output: explanation(),
            write: false,
        },
        Def {
            name: "why_not_node",
            title: "Why not this node",
            description: "One node's verdict for a pod by every Filter plugin of the pod's profile (Success, the rejection with upstream's reasons, Skip when PreFilter skipped the plugin, NotEvaluated when the node was not evaluated), the plugin upstream reports, and the node's scores when it passes.",
            input: object(
                json!({
                    "pod": {"type": "string", "description": "NAMESPACE/NAME."},
                    "node": {"type": "string", "description": "The node."}
                }),
                &["pod", "node"],
            ),
            output: node_verdict(),
            write: false,
        },
        Def {
            name: "queue",
            title: "Scheduling queue",
            description: "Where every pending pod waits in the scheduling queue (active, unschedulable, backoff, held before the queue, waiting at Permit, another scheduler's) and which cluster events move it on: `kschedtui queue -o json` (docs/queue-json.md).",
            input: object(
                json!({"namespace": {"type": "string", "description": "Only this namespace's pods (the queue is the whole cluster's)."}}),
                &[],
            ),
            output: queue(),
            write: false,
        },
        Def {
            name: "fix_hints",
            title: "Fix hints",
            description: "For a pod that is not schedulable: one change per blocking reason (remove gates, tolerate a taint, uncordon, label a node, lower a request, a bigger node, relax maxSkew, a schedulerName, free a host port, prefer an affinity term, create a missing ResourceClaim, change a claim's request to the devices a node has, name the existing pods whose anti-affinity rejects it; first, when preemption already places the pod, `Preempt`), smallest change first, each with the kubectl command that makes it and the engine's answer after the change (`after`: Binds with the node, NotEnough with the new verdict). The `fixes` of explain_pod.",
            input: object(
                json!({"pod": {"type": "string", "description": "NAMESPACE/NAME."}}),
                &["pod"],
            ),
            output: object(
                json!({
                    "pod": pod_ref(),
                    "outcome": outcome(),
                    "message": {"type": ["string", "null"]},
                    "fixes": {"type": "array", "items": fix()}
                }),
                &["pod", "outcome", "message", "fixes"],
            ),
            write: false,
        },
        Def {
            name: "simulate",
            title: "Simulate the queue",
            description: "Schedules every pending pod in queue order on a copy of the cluster, each result changing the cluster for the next (binds, Permit waits with their timeouts, preemptions): `kschedtui simulate -o json` (docs/simulate-json.md). Nothing is written.",
            input: object(
                json!({"namespace": {"type": "string", "description": "Attempt only this namespace's pending pods."}}),
                &[],
            ),
            output: simulation(),
            write: false,
        },
        Def {
            name: "deschedule",
            title: "Descheduler dry run",
            description: "Runs one cycle of a DeschedulerPolicy (descheduler/v1alpha2, YAML text) on a copy of the cluster and says where every evicted pod's replacement lands: `kschedtui deschedule -o json` (docs/deschedule-json.md). Nothing is written.",
            input: object(
                json!({
                    "policy": {"type": "string", "description": "The DeschedulerPolicy as YAML text."},
                    "now": {"type": "string", "description": "The time the cycle runs at (RFC 3339; default: the clock)."},
                    "namespace": {"type": "string", "description": "Only this namespace's pods in the report."}
                }),
                &["policy"],
            ),
            output: deschedule(),
            write: false,
        },
        Def {
            name: "fit",
            title: "Will it fit",
            description: "Places workloads before they exist: the manifests (YAML text, several documents: Pod, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob and what they bring: ResourceClaimTemplates, PVCs, PriorityClasses, quotas, LimitRanges, PodGroups, Workloads, Namespaces) are made into pods as their controllers and the API server's admission would make them, and placed in queue order on a copy of the cluster, each placement applied before the next, gangs all or nothing: `kschedtui fit -f FILE -o json` (docs/fit-json.md). Per workload the replicas scheduled, the nodes with their counts, and for the first replica that does not fit the exact message, its decisive reason, whom preemption would evict and the fix hints. `max` finds the largest number of replicas that fit, by placing them. Nothing is written.",
            input: object(
                json!({
                    "manifests": {"type": "string", "description": "The manifests as YAML text (documents separated by ---, or a List)."},
                    "max": {"type": "boolean", "description": "Also find the largest number of replicas of each workload that fit (each workload alone), by placing them."},
                    "replicas": {"type": "integer", "minimum": 0, "description": "Place this many replicas of every workload instead of their spec's (a DaemonSet keeps one per eligible node)."},
                    "namespace": {"type": "string", "description": "The namespace of manifests that name none (default: the server's default namespace)."},
                    "preempt": {"type": "boolean", "description": "Apply preemptions as simulate does (default: only say what preemption would do)."},
                    "afterPending": {"type": "boolean", "description": "Schedule the cluster's pending pods first."},
                    "noFixes": {"type": "boolean", "description": "Leave out the fix hints."},
                    "maxLimit": {"type": "integer", "minimum": 0, "description": "With max: the most replicas the search places (default 100000)."}
                }),
                &["manifests"],
            ),
            output: fit(),
            write: false,
        },
        Def {
            name: "cluster_summary",
            title: "Cluster summary",
            description: "The cluster served: its source, the scheduler release reproduced, the profiles, node and pod counts, the pending pods by outcome and namespace, the resourceVersions the watch reached, and whether writes are listed.",
            input: object(json!({}), &[]),
            output: summary(),
            write: false,
        },
    ];
    if allow_writes {
        v.push(Def {
            name: "bind",
            title: "Bind a pod",
            description: "Binds a pending pod in two calls. First call (pod, optional node, gang, force): the engine's binding cycle plans the exact requests (PreBind writes, the Binding; a gang member that would wait at Permit is refused unless gang or force) and returns them with a token; nothing is sent. Second call (token): checks the permissions (SelfSubjectAccessReview) and sends exactly those requests; the report gives every answer. Tokens are single-use and expire after 10 minutes.",
            input: object(
                json!({
                    "pod": {"type": "string", "description": "NAMESPACE/NAME (first call)."},
                    "node": {"type": "string", "description": "A node instead of the engine's choice."},
                    "gang": {"type": "boolean", "description": "Bind every member of the pod's gang the engine places, once its quorum is met."},
                    "force": {"type": "boolean", "description": "Bind to a node that fails Filter, or a gang member alone."},
                    "token": {"type": "string", "description": "The first call's token: send its requests."}
                }),
                &[],
            ),
            output: write_result(),
            write: true,
        });
        v.push(Def {
            name: "preempt",
            title: "Preempt for a pod",
            description: "Preempts for a pending pod in two calls. First call (pod, evict): the engine's preemption plans the exact requests (each victim deleted, or evicted through the Eviction API which honours PodDisruptionBudgets, then the nomination) and returns them with a token; nothing is sent. Second call (token): checks the permissions and sends exactly those requests. Tokens are single-use and expire after 10 minutes.",
            input: object(
                json!({
                    "pod": {"type": "string", "description": "NAMESPACE/NAME (first call)."},
                    "evict": {"type": "boolean", "description": "Evict the victims instead of deleting them."},
                    "token": {"type": "string", "description": "The first call's token: send its requests."}
                }),
                &[],
            ),
            output: write_result(),
            write: true,
        });
    }
    v
}

/// An object schema with these properties, these required; other keys allowed.
fn object(properties: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required})
}

fn strings() -> Value {
    json!({"type": "array", "items": {"type": "string"}})
}

/// `{namespace, name}`: a pod everywhere.
fn pod_ref() -> Value {
    json!({
        "type": "object",
        "properties": {"namespace": {"type": "string"}, "name": {"type": "string"}},
        "required": ["namespace", "name"],
        "additionalProperties": false
    })
}

fn outcome() -> Value {
    json!({"enum": Outcome::ALL.iter().map(|o| o.as_str()).collect::<Vec<_>>()})
}

fn code() -> Value {
    json!({"enum": ["Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Wait", "Skip", "Pending"]})
}

fn status() -> Value {
    object(
        json!({"plugin": {"type": "string"}, "code": code(), "reasons": strings(), "timeoutMs": {"type": "integer"}}),
        &["plugin", "code"],
    )
}

fn fix() -> Value {
    object(
        json!({
            "reason": {"type": "string"},
            "kind": {"enum": ["RemoveSchedulingGates", "Tolerate", "Uncordon", "LabelNode", "LowerRequests", "FreshNode", "BiggerNode", "RelaxMaxSkew", "SchedulerName", "DeletePods", "PreferAffinityTerm", "Preempt", "CreateClaim", "ChangeClaimRequest", "NoDeviceOfClass", "ExistingPodsAntiAffinity"]},
            "change": {"type": "string"},
            "command": {"type": ["string", "null"]},
            "note": {"type": ["string", "null"]},
            "after": object(json!({
                "result": {"enum": ["Binds", "NotEnough", "Failed", "Unchecked"]},
                "nodes": strings(),
                "verdict": {"type": "string"},
                "error": {"type": "string"},
                "why": {"type": "string"}
            }), &["result"])
        }),
        &["reason", "kind", "change", "command", "note", "after"],
    )
}

/// An explanation (docs/explain-json.md).
pub fn explanation() -> Value {
    object(
        json!({
            "apiVersion": {"const": "kschedtui/v1"},
            "kind": {"const": "Explanation"},
            "pod": pod_ref(),
            "outcome": outcome(),
            "profile": {"type": "string"},
            "nodeCount": {"type": "integer", "minimum": 0},
            "preEnqueue": {"type": "array", "items": status()},
            "preFilter": {"type": "array", "items": status()},
            "preFilterNodeNames": {"type": ["array", "null"], "items": {"type": "string"}},
            "filter": {"type": "array", "items": object(json!({
                "node": {"type": "string"},
                "feasible": {"type": "boolean"},
                "plugin": {"type": "string"},
                "code": code(),
                "reasons": strings()
            }), &["node", "feasible"])},
            "preScore": {"type": "array", "items": status()},
            "score": {"type": "array", "items": object(json!({
                "node": {"type": "string"},
                "total": {"type": "integer"},
                "plugins": {"type": "array", "items": object(json!({
                    "plugin": {"type": "string"},
                    "raw": {"type": "integer"},
                    "normalized": {"type": "integer"},
                    "weight": {"type": "integer"},
                    "weighted": {"type": "integer"}
                }), &["plugin", "raw", "normalized", "weight", "weighted"])}
            }), &["node", "total", "plugins"])},
            "selected": strings(),
            "hostPick": {"type": "string"},
            "message": {"type": "string"},
            "postFilter": object(json!({
                "plugin": {"type": "string"},
                "code": {"anyOf": [code(), {"type": "null"}]},
                "nominatedNode": {"type": ["string", "null"]},
                "victims": {"type": "array", "items": pod_ref()},
                "message": {"type": "string"}
            }), &["plugin", "code", "nominatedNode", "victims", "message"]),
            "waitingForScheduler": {"type": "string"},
            "schedulerVersion": {"type": "string"},
            "featureGates": {"type": "string"},
            "notes": strings(),
            "permit": {"type": "array", "items": status()},
            "bindingCycle": object(json!({
                "node": {"type": "string"},
                "outcome": {"enum": ["Bound", "Waiting", "Rejected", "Error"]}
            }), &["node", "reserve", "permit", "preBind", "bind", "postBind", "outcome"]),
            "gang": object(json!({"plugin": {"type": "string"}, "group": {"type": "string"}}), &["plugin", "group"]),
            "dra": object(json!({"claims": {"type": "array"}, "nodes": {"type": "array"}}), &["claims", "nodes"]),
            "opportunisticBatching": object(json!({"state": {"enum": ["signed", "unsigned", "profileUnsigned", "unknown"]}}), &["state"]),
            "fixes": {"type": "array", "items": fix()},
            "cluster": {"type": "object"},
            "groupCycle": object(json!({"plugin": {"type": "string"}, "group": {"type": "string"}}), &["plugin", "group", "tried", "outcome", "verdict"])
        }),
        &[
            "apiVersion",
            "kind",
            "pod",
            "outcome",
            "profile",
            "nodeCount",
            "preFilter",
            "preFilterNodeNames",
            "filter",
            "score",
            "selected",
            "schedulerVersion",
        ],
    )
}

fn node_verdict() -> Value {
    object(
        json!({
            "pod": pod_ref(),
            "node": {"type": "string"},
            "outcome": outcome(),
            "feasible": {"type": "boolean"},
            "evaluated": {"type": "boolean"},
            "decidedBy": {"type": ["string", "null"]},
            "plugins": {"type": "array", "items": object(json!({
                "plugin": {"type": "string"},
                "code": {"anyOf": [code(), {"const": "NotEvaluated"}]},
                "reasons": strings()
            }), &["plugin", "code", "reasons"])},
            "rejectedByNominatedPods": {"type": "array", "items": pod_ref()},
            "score": {"anyOf": [{"type": "null"}, object(json!({
                "total": {"type": "integer"},
                "rank": {"type": "integer", "minimum": 1},
                "of": {"type": "integer", "minimum": 1},
                "plugins": {"type": "array"}
            }), &["total", "rank", "of", "plugins"])]},
            "summary": {"type": "string"}
        }),
        &[
            "pod",
            "node",
            "outcome",
            "feasible",
            "evaluated",
            "decidedBy",
            "plugins",
            "rejectedByNominatedPods",
            "score",
            "summary",
        ],
    )
}

/// The queue report (docs/queue-json.md).
pub fn queue() -> Value {
    object(
        json!({
            "apiVersion": {"const": "kschedtui/v1"},
            "kind": {"const": "Queue"},
            "schedulerVersion": {"type": "string"},
            "pods": {"type": "array", "items": object(json!({
                "pod": pod_ref(),
                "pool": {"enum": ["heldBeforeQueue", "unschedulable", "errorBackoff", "active", "waitingAtPermit", "otherScheduler"]},
                "plugins": strings(),
                "reason": {"type": "string"},
                "requeueOn": strings(),
                "writesEvent": {"type": "boolean"},
                "backoff": {"type": ["string", "null"]}
            }), &["pod", "pool", "plugins", "reason", "requeueOn", "writesEvent", "backoff"])}
        }),
        &["apiVersion", "kind", "schedulerVersion", "pods"],
    )
}

/// The simulation report (docs/simulate-json.md).
pub fn simulation() -> Value {
    object(
        json!({
            "apiVersion": {"const": "kschedtui/v1"},
            "kind": {"const": "Simulation"},
            "schedulerVersion": {"type": "string"},
            "passes": {"type": "integer"},
            "converged": {"type": "boolean"},
            "endMs": {"type": "integer"},
            "events": {"type": "array", "items": object(json!({
                "pass": {"type": "integer"},
                "atMs": {"type": "integer"},
                "pod": pod_ref(),
                "event": {"enum": ["Attempt", "WaitEnded", "Evicted", "NominationCleared", "NominatedForExpectation"]},
                "explanation": explanation()
            }), &["pass", "atMs", "pod", "event"])},
            "pods": {"type": "array", "items": object(json!({
                "pod": pod_ref(),
                "result": {"type": "string"}
            }), &["pod", "result"])},
            "evicted": {"type": "array", "items": pod_ref()},
            "nodes": {"type": "array", "items": object(json!({"node": {"type": "string"}}), &["node"])}
        }),
        &[
            "apiVersion",
            "kind",
            "schedulerVersion",
            "passes",
            "converged",
            "endMs",
            "events",
            "pods",
            "evicted",
            "nodes",
        ],
    )
}

/// The descheduler dry run (docs/deschedule-json.md).
pub fn deschedule() -> Value {
    object(
        json!({
            "apiVersion": {"const": "kschedtui/v1"},
            "kind": {"const": "DeschedulerDryRun"},
            "policy": {"type": "string"},
            "now": {"type": "string"},
            "schedulerVersion": {"type": "string"},
            "namespace": {"type": ["string", "null"]},
            "limits": {"type": "object"},
            "unreproduced": {"type": "array"},
            "nodes": strings(),
            "skipped": {"type": ["string", "null"]},
            "plugins": {"type": "array"},
            "evictions": {"type": "array", "items": object(json!({
                "pod": pod_ref(),
                "replacement": {"anyOf": [pod_ref(), {"type": "null"}]},
                "result": {"enum": ["Moved", "SameNode", "Pending", "Waiting", "Held", "NotRecreated"]}
            }), &["pod", "node", "plugin", "owner", "replacement", "result", "landingNode", "message", "explanation"])},
            "preempted": {"type": "array", "items": pod_ref()},
            "summary": object(json!({
                "evicted": {"type": "integer"},
                "moved": {"type": "integer"},
                "sameNode": {"type": "integer"},
                "pending": {"type": "integer"},
                "notRecreated": {"type": "integer"},
                "waitingOrHeld": {"type": "integer"}
            }), &["evicted", "moved", "sameNode", "pending", "notRecreated", "waitingOrHeld"])
        }),
        &[
            "apiVersion",
            "kind",
            "policy",
            "now",
            "schedulerVersion",
            "namespace",
            "limits",
            "unreproduced",
            "nodes",
            "skipped",
            "plugins",
            "evictions",
            "preempted",
            "summary",
        ],
    )
}

/// Will it fit (docs/fit-json.md).
pub fn fit() -> Value {
    let nullable_string = json!({"type": ["string", "null"]});
    let replica = object(
        json!({
            "pod": pod_ref(),
            "result": {"enum": ["Bound", "Waiting", "Pending", "Held", "NoProfile", "Refused", "NotCreated"]},
            "node": {"type": "string"},
            "nominatedNode": nullable_string,
            "plugin": {"type": "string"},
            "message": {"type": "string"}
        }),
        &["pod", "result"],
    );
    let claim = object(
        json!({
            "claim": pod_ref(),
            "binding": {"enum": ["WaitForFirstConsumer", "BoundToExisting", "ProvisionedImmediately", "Unbound", "Existing"]},
            "detail": nullable_string,
            "node": nullable_string
        }),
        &["claim", "binding", "detail", "node"],
    );
    let workload = object(
        json!({
            "kind": {"enum": ["Pod", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob"]},
            "namespace": {"type": "string"},
            "name": {"type": "string"},
            "replicas": {"type": "integer", "minimum": 0},
            "scheduled": {"type": "integer", "minimum": 0},
            "unschedulable": {"type": "integer", "minimum": 0},
            "nodes": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 1}},
            "message": nullable_string,
            "reason": nullable_string,
            "pod": {"anyOf": [pod_ref(), {"type": "null"}]},
            "preemption": {"anyOf": [{"type": "null"}, object(json!({
                "node": nullable_string,
                "victims": {"type": "array", "items": pod_ref()},
                "message": {"type": "string"}
            }), &["node", "victims", "message"])]},
            "fixes": {"type": "array", "items": fix()},
            "maxReplicas": {"type": "integer", "minimum": 0},
            "maxSearch": object(json!({
                "method": {"enum": ["linear", "linearConfirmed", "linearThenBinary"]},
                "placements": {"type": "integer", "minimum": 0},
                "next": {"type": "string"},
                "limited": {"type": "boolean"}
            }), &["method", "placements", "next", "limited"]),
            "pods": {"type": "array", "items": replica},
            "claims": {"type": "array", "items": claim},
            "resourceClaims": {"type": "array", "items": pod_ref()},
            "notes": strings()
        }),
        &[
            "kind",
            "namespace",
            "name",
            "replicas",
            "scheduled",
            "unschedulable",
            "nodes",
            "message",
            "reason",
            "pod",
            "preemption",
            "pods",
            "claims",
            "resourceClaims",
            "notes",
        ],
    );
    object(
        json!({
            "apiVersion": {"const": "kschedtui/v1"},
            "kind": {"const": "Fit"},
            "schedulerVersion": {"type": "string"},
            "preempt": {"type": "boolean"},
            "afterPending": {"anyOf": [{"type": "null"}, object(json!({
                "bound": {"type": "integer", "minimum": 0},
                "pending": {"type": "integer", "minimum": 0}
            }), &["bound", "pending"])]},
            "notes": strings(),
            "skipped": strings(),
            "workloads": {"type": "array", "items": workload},
            "evicted": {"type": "array", "items": pod_ref()}
        }),
        &[
            "apiVersion",
            "kind",
            "schedulerVersion",
            "preempt",
            "afterPending",
            "notes",
            "skipped",
            "workloads",
            "evicted",
        ],
    )
}

fn summary() -> Value {
    let counts = json!({"type": "object", "additionalProperties": {"type": "integer"}});
    object(
        json!({
            "source": {"type": "string"},
            "schedulerVersion": {"type": "string"},
            "profiles": strings(),
            "nodes": {"type": "integer"},
            "pods": {"type": "integer"},
            "pendingPods": {"type": "integer"},
            "outcomes": counts.clone(),
            "pendingByNamespace": counts,
            "resourceVersions": {"type": "string"},
            "watchEnded": {"type": ["string", "null"]},
            "writes": {"enum": ["notListed", "inMemory", "enabled", "serverDryRun", "readOnly"]}
        }),
        &[
            "source",
            "schedulerVersion",
            "profiles",
            "nodes",
            "pods",
            "pendingPods",
            "outcomes",
            "pendingByNamespace",
            "resourceVersions",
            "watchEnded",
            "writes",
        ],
    )
}

fn write_result() -> Value {
    object(
        json!({
            "tool": {"enum": ["bind", "preempt"]},
            "pod": pod_ref(),
            "token": {"type": "string"},
            "action": {"type": "string"},
            "requests": strings(),
            "target": {"type": "string"},
            "dryRun": {"type": "boolean"},
            "said": strings(),
            "warnings": strings(),
            "sent": {"type": "boolean"},
            "ok": {"type": ["boolean", "null"]},
            "report": {"type": ["string", "null"]}
        }),
        &[
            "tool", "pod", "token", "action", "requests", "target", "dryRun", "said", "warnings", "sent", "ok",
            "report",
        ],
    )
}

/// `why_not_node`: the node's verdict by every Filter plugin of the pod's profile.
pub fn node_verdicts(ex: &Explanation, profiles: &[Framework], node: &str) -> Value {
    let entry = ex.filter.iter().find(|f| f.node == node);
    let skipped: Vec<&str> = ex
        .pre_filter
        .iter()
        .filter(|s| s.code == Code::Skip)
        .map(|s| s.plugin.as_str())
        .collect();
    let plugins: Vec<&'static str> = profiles
        .iter()
        .find(|p| p.name == ex.profile)
        .map(|p| p.plugins_at("Filter"))
        .unwrap_or_default();
    let evaluated = entry.is_some_and(|f| !f.excluded_by_prefilter);
    let mut rows = Vec::new();
    // without the diagnostic pass only upstream's first failure is known: the plugins after it
    // did not run on the node
    let mut after_first = false;
    for p in &plugins {
        let row = match entry {
            Some(f) if evaluated => {
                let failures: Vec<&crate::engine::trace::FilterFailure> = if f.all_failures.is_empty() {
                    f.failure.iter().collect()
                } else {
                    f.all_failures.iter().collect()
                };
                if let Some(fl) = failures.iter().find(|x| x.plugin == *p) {
                    if f.all_failures.is_empty() {
                        after_first = true;
                    }
                    json!({"plugin": p, "code": fl.code.as_str(), "reasons": fl.reasons})
                } else if skipped.contains(p) {
                    json!({"plugin": p, "code": "Skip", "reasons": []})
                } else if after_first {
                    json!({"plugin": p, "code": "NotEvaluated", "reasons": []})
                } else {
                    json!({"plugin": p, "code": "Success", "reasons": []})
                }
            }
            _ => json!({"plugin": p, "code": "NotEvaluated", "reasons": []}),
        };
        rows.push(row);
    }
    let score = ex.score.iter().position(|s| s.node == node).map(|_| {
        let mut ranked: Vec<&crate::engine::trace::NodeScoreTrace> = ex.score.iter().collect();
        ranked.sort_by(|a, b| b.total.cmp(&a.total).then(a.node.cmp(&b.node)));
        let rank = ranked.iter().position(|s| s.node == node).map_or(0, |i| i + 1);
        let s = ranked[rank - 1];
        json!({
            "total": s.total,
            "rank": rank,
            "of": ranked.len(),
            "plugins": s.plugins.iter().map(|p| json!({
                "plugin": p.plugin, "raw": p.raw, "normalized": p.normalized,
                "weight": p.weight, "weighted": p.weighted,
            })).collect::<Vec<_>>(),
        })
    });
    let feasible = entry.is_some_and(|f| f.feasible);
    let summary = match ex.why_not(node) {
        Some(why) => why,
        None => match &score {
            Some(s) => format!(
                "passes Filter; total score {} (rank {} of {})",
                s["total"], s["rank"], s["of"]
            ),
            None => "passes Filter".to_string(),
        },
    };
    json!({
        "pod": {"namespace": ex.pod.namespace, "name": ex.pod.name},
        "node": node,
        "outcome": ex.outcome().as_str(),
        "feasible": feasible,
        "evaluated": evaluated,
        "decidedBy": entry.and_then(|f| f.failure.as_ref()).map(|f| f.plugin),
        "plugins": rows,
        "rejectedByNominatedPods": entry
            .map(|f| f.rejected_by_nominated_pods.iter().map(|k| json!({"namespace": k.namespace, "name": k.name})).collect::<Vec<_>>())
            .unwrap_or_default(),
        "score": score,
        "summary": summary,
    })
}
