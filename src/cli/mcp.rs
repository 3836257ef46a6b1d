//! `kschedtui mcp`: the engine served to agents over the Model Context Protocol (stdio, the
//! official Rust SDK `rmcp`).
//!
//! The cluster is `--snapshot`, `--demo` or the live cluster, read once and then kept current
//! by the source's watch (the TUI's way: [`ClusterSource::watch`]); every answer is made on
//! the cluster as it is when the call arrives. The tools return the documents the CLI writes
//! (`explain_pod` is `explain POD -o json`, made by the same function, [`explain_pods`]) as
//! structured content, with a two-line text summary; their input and output schemas are in
//! [`tools`]. An error is a tool error with the CLI's one-line message.
//!
//! Writes (`bind`, `preempt`) are listed only with `--allow-writes`, and take two calls: the
//! first plans the requests as `kschedtui bind|preempt` does ([`super::live::plan_bind`],
//! [`super::live::plan_preempt`]: the engine's binding cycle, nomination, PreBind writes, the
//! refusal to bind a gang member alone) and returns them with a token; the second, with the
//! token, checks the permissions and sends exactly those requests ([`check_plan`],
//! [`execute`]). A token is used once and lasts [`TOKEN_TTL`].
//!
//! Nothing but the protocol is written to stdout; warnings go to stderr.
#![allow(clippy::print_stderr)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow, bail};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams, GetPromptResponse,
    GetPromptResult, Implementation, JsonObject, ListPromptsResult, ListToolsResult, PaginatedRequestParams, Prompt,
    PromptArgument, PromptMessage, Role, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

use super::live::{BindChoice, Say, plan_bind, plan_preempt};
use super::{
    Cli, ExplainArgs, McpArgs, Output, QueueArgs, explain_pods, load_profiles, render_queue, resolve_features,
};
use crate::engine::trace::{Explanation, Outcome};
use crate::engine::{self, Features, Framework, Release, Snapshot};
use crate::model::event::{ClusterEvent, ClusterState};
use crate::model::{Cluster, ObjectKey};
use crate::source::ClusterSource;
use crate::source::write::{Plan, Removal, WriteMode, check_plan, execute};

pub mod tools;

/// How long a write token stays valid.
pub const TOKEN_TTL: Duration = Duration::from_secs(600);

/// Runs the server on stdio until the client closes it.
pub fn run(args: &McpArgs, cli: &Cli) -> Result<()> {
    if args.allow_writes && cli.cluster.readonly {
        bail!("--allow-writes and --readonly contradict each other: pass one of them");
    }
    let mode = super::live::write_mode(&cli.cluster);
    super::live::runtime()?.block_on(async {
        if let Some(input) = crate::source::load::Input::from_flags(cli.snapshot.as_deref(), cli.demo) {
            let features = resolve_features(&args.release, input.recorded())?;
            // the in-memory API server of a rehearsal answers as the release's would
            let src = input
                .fixture()?
                .with_write_mode(mode)
                .with_server_options(features.server_options());
            return serve(src, features, "default".to_string(), true, args).await;
        }
        let opts = super::live::connect_options(&cli.cluster, None, crate::source::live::Scope::AllNamespaces);
        let src =
            crate::source::live::LiveSource::connect(&opts, &crate::source::live::config::Environment::from_process())
                .await?;
        let sv = src.server_version().await?;
        let ns = src.info().namespace.clone();
        let features = resolve_features(&args.release, Some(Release::from_server(&sv.git_version)))?;
        serve(src, features, ns, false, args).await
    })
}

/// Loads the cluster, starts the watch and serves until stdin closes.
async fn serve<S: ClusterSource>(
    src: S,
    features: Features,
    default_ns: String,
    in_memory: bool,
    args: &McpArgs,
) -> Result<()> {
    if let Some(n) = features.note() {
        eprintln!("note: {n}");
    }
    let profiles = load_profiles(args.config.as_deref(), &features)?;
    let state = src.load().await?;
    let shared = Arc::new(Shared {
        describe: src.describe(),
        mode: src.write_mode(),
        src: Arc::new(src),
        default_ns,
        in_memory,
        features,
        profiles,
        args: args.clone(),
        held: Mutex::new(Held {
            state,
            built: None,
            watch: None,
        }),
        plans: Mutex::new(BTreeMap::new()),
    });
    let (tx, mut rx) = tokio::sync::mpsc::channel::<ClusterEvent>(1024);
    let watched = shared.clone();
    let watcher = {
        let src = shared.src.clone();
        tokio::spawn(async move { src.watch(tx).await })
    };
    tokio::spawn(async move {
        while let Some(ev) = rx.recv().await {
            watched.apply(ev);
        }
        let why = match watcher.await {
            Ok(Err(e)) => format!("{e:#}"),
            _ => "the watch stopped".to_string(),
        };
        lock(&watched.held).watch = Some(why);
    });
    eprintln!(
        "kschedtui mcp: serving {} (scheduler {}) on stdio; writes {}",
        shared.describe,
        shared.features.describe(),
        if shared.args.allow_writes {
            "allowed (two calls, with a token)"
        } else {
            "not listed (pass --allow-writes)"
        }
    );
    let service = Server { shared }
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| anyhow!("the MCP client's initialize failed: {e}"))?;
    service
        .waiting()
        .await
        .map_err(|e| anyhow!("the MCP server stopped: {e}"))?;
    Ok(())
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The cluster as the watch keeps it, and its model built once per change.
struct Held {
    state: ClusterState,
    built: Option<Arc<Cluster>>,
    /// Why the watch ended, once it has (the answers are then of the cluster as it was).
    watch: Option<String>,
}

/// A write planned by a first call, waiting for its token.
struct Pending {
    tool: &'static str,
    pod: ObjectKey,
    plan: Plan,
    made: Instant,
}

/// What every call reads.
struct Shared<S> {
    src: Arc<S>,
    describe: String,
    mode: WriteMode,
    /// The namespace of a pod named without one.
    default_ns: String,
    /// A snapshot or the demo: writes change the in-memory cluster (a rehearsal).
    in_memory: bool,
    features: Features,
    profiles: Vec<Framework>,
    args: McpArgs,
    held: Mutex<Held>,
    plans: Mutex<BTreeMap<String, Pending>>,
}

impl<S: ClusterSource> Shared<S> {
    fn apply(&self, ev: ClusterEvent) {
        let mut h = lock(&self.held);
        if h.state.apply(ev) {
            h.built = None;
        }
    }

    /// The cluster now.
    fn cluster(&self) -> Result<Arc<Cluster>> {
        let mut h = lock(&self.held);
        if let Some(c) = &h.built {
            return Ok(c.clone());
        }
        let c = Arc::new(h.state.to_cluster()?);
        h.built = Some(c.clone());
        Ok(c)
    }

    fn key(&self, pod: &str) -> ObjectKey {
        ObjectKey::parse(pod, &self.default_ns)
    }

    /// `explain POD -o json`'s document, made by the CLI's own function.
    fn explain_document(&self, pod: &str, start_node: Option<usize>) -> Result<Value> {
        let args = ExplainArgs {
            pod: Some(pod.to_string()),
            namespace: None,
            all_namespaces: false,
            all_pending: false,
            output: Output::Json,
            release: self.args.release.clone(),
            config: self.args.config.clone(),
            profile: None,
            exit_status: false,
            no_fixes: false,
            start_node,
        };
        let cluster = (*self.cluster()?).clone();
        let explained = explain_pods(&args, cluster, &self.features, &self.default_ns)?;
        explained
            .to_values()
            .into_iter()
            .next()
            .ok_or_else(|| anyhow!("pod '{pod}': no explanation was made"))
    }

    /// The engine's explanation of one pod, with the snapshot it was made on.
    fn explanation(&self, pod: &ObjectKey) -> Result<(Arc<Cluster>, Explanation)> {
        let cluster = self.cluster()?;
        let snap = Snapshot::new(cluster.clone(), &self.features);
        let ex = engine::explain(&snap, &self.profiles, pod)?;
        Ok((cluster, ex))
    }

    /// Every pending pod's explanation (queue order).
    fn pending(&self, namespace: Option<&str>) -> Result<Vec<Explanation>> {
        let cluster = self.cluster()?;
        let snap = Snapshot::new(cluster.clone(), &self.features);
        let mut out = Vec::new();
        for p in cluster.pending_pods() {
            if namespace.is_some_and(|ns| p.key.namespace != ns) {
                continue;
            }
            out.push(engine::explain(&snap, &self.profiles, &p.key)?);
        }
        Ok(out)
    }

    async fn call(&self, name: &str, a: &Args) -> Result<(Value, String)> {
        match name {
            "list_pods" => self.list_pods(a),
            "explain_pod" => self.explain_pod(a),
            "why_not_node" => self.why_not_node(a),
            "queue" => self.queue(a),
            "fix_hints" => self.fix_hints(a),
            "simulate" => self.simulate(a),
            "deschedule" => self.deschedule(a),
            "fit" => self.fit(a),
            "cluster_summary" => self.cluster_summary(),
            "bind" | "preempt" if self.args.allow_writes => self.write(name, a).await,
            _ => bail!(
                "unknown tool '{name}' (tools: {})",
                tools::list(self.args.allow_writes)
                    .iter()
                    .map(|t| t.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    fn list_pods(&self, a: &Args) -> Result<(Value, String)> {
        let namespace = a.string("namespace")?;
        let pending_only = a.boolean("pendingOnly")?.unwrap_or(true);
        let reason = a.string("reason")?.map(|r| r.to_lowercase());
        let cluster = self.cluster()?;
        let explained: BTreeMap<ObjectKey, Explanation> = self
            .pending(namespace.as_deref())?
            .into_iter()
            .map(|e| (e.pod.clone(), e))
            .collect();
        let mut pods = Vec::new();
        for p in cluster.pods.iter() {
            if namespace.as_deref().is_some_and(|ns| p.key.namespace != ns) {
                continue;
            }
            let ex = explained.get(&p.key);
            if pending_only && ex.is_none() {
                continue;
            }
            let verdict = ex.map(Explanation::verdict);
            if let Some(r) = &reason
                && !verdict
                    .as_deref()
                    .is_some_and(|v| v.to_lowercase().contains(r.as_str()))
            {
                continue;
            }
            pods.push(json!({
                "pod": {"namespace": p.key.namespace, "name": p.key.name},
                "phase": p.phase(),
                "node": p.node_name.as_deref(),
                "pending": ex.is_some(),
                "outcome": ex.map(|e| e.outcome().as_str()),
                "verdict": verdict,
            }));
        }
        let n = pods.len();
        let pending = pods.iter().filter(|p| p["pending"] == true).count();
        let summary = format!(
            "{n} pod(s){}{}, {pending} pending",
            namespace.map(|ns| format!(" in namespace {ns}")).unwrap_or_default(),
            reason
                .map(|r| format!(" whose verdict contains '{r}'"))
                .unwrap_or_default(),
        );
        let next = if pending > 0 {
            "explain_pod names why a pending pod waits; fix_hints what would change it"
        } else {
            "no pending pod here"
        };
        Ok((json!({"count": n, "pods": pods}), format!("{summary}\n{next}")))
    }

    fn explain_pod(&self, a: &Args) -> Result<(Value, String)> {
        let pod = a.required("pod")?;
        let mut doc = self.explain_document(&pod, a.count("startNode")?)?;
        if let Some(node) = a.string("node")? {
            let cluster = self.cluster()?;
            if !cluster.nodes.iter().any(|n| n.name == node) {
                bail!("node '{node}' is not in the cluster");
            }
            for list in ["filter", "score"] {
                if let Some(Value::Array(items)) = doc.get_mut(list) {
                    items.retain(|e| e["node"] == node.as_str());
                }
            }
        }
        let summary = summarize(&doc);
        Ok((doc, summary))
    }

    fn why_not_node(&self, a: &Args) -> Result<(Value, String)> {
        let key = self.key(&a.required("pod")?);
        let node = a.required("node")?;
        let (cluster, ex) = self.explanation(&key)?;
        if !cluster.nodes.iter().any(|n| n.name == node) {
            bail!("node '{node}' is not in the cluster");
        }
        let v = tools::node_verdicts(&ex, &self.profiles, &node);
        let line = format!("{key} on {node}: {}", v["summary"].as_str().unwrap_or_default());
        let next = match v["feasible"].as_bool() {
            Some(true) => format!("{node} passes Filter; the scheduler selects {}", ex.selected.join(", ")),
            _ => "fix_hints says which change would let the pod bind somewhere".to_string(),
        };
        Ok((v, format!("{line}\n{next}")))
    }

    fn queue(&self, a: &Args) -> Result<(Value, String)> {
        let args = QueueArgs {
            output: Output::Json,
            namespace: a.string("namespace")?,
            all_namespaces: false,
            release: self.args.release.clone(),
            config: self.args.config.clone(),
        };
        let text = render_queue(&args, (*self.cluster()?).clone(), &self.features)?;
        let v: Value = serde_json::from_str(&text)?;
        let pods = v["pods"].as_array().map_or(0, Vec::len);
        let mut pools: BTreeMap<String, usize> = BTreeMap::new();
        for p in v["pods"].as_array().into_iter().flatten() {
            *pools
                .entry(p["pool"].as_str().unwrap_or_default().to_string())
                .or_default() += 1;
        }
        let by: Vec<String> = pools.iter().map(|(k, n)| format!("{n} {k}")).collect();
        Ok((
            v,
            format!(
                "{pods} pending pod(s) in the scheduling queue: {}\neach entry says what moves the pod on (requeueOn)",
                if by.is_empty() {
                    "none".to_string()
                } else {
                    by.join(", ")
                }
            ),
        ))
    }

    fn fix_hints(&self, a: &Args) -> Result<(Value, String)> {
        let pod = a.required("pod")?;
        let doc = self.explain_document(&pod, None)?;
        let fixes = doc.get("fixes").cloned().unwrap_or_else(|| json!([]));
        let v = json!({
            "pod": doc["pod"],
            "outcome": doc["outcome"],
            "message": doc.get("message").cloned().unwrap_or(Value::Null),
            "fixes": fixes,
        });
        let list = v["fixes"].as_array().cloned().unwrap_or_default();
        let works = list.iter().filter(|f| f["after"]["result"] == "Binds").count();
        let first = format!(
            "{}: {} fix(es), {works} of them checked to bind the pod",
            self.key(&pod),
            list.len()
        );
        let second = match list.iter().find(|f| f["after"]["result"] == "Binds") {
            Some(f) => format!(
                "best: {}{}",
                f["change"].as_str().unwrap_or_default(),
                f["command"].as_str().map(|c| format!(" ($ {c})")).unwrap_or_default()
            ),
            None if doc["outcome"] == Outcome::Schedulable.as_str() => "the pod is schedulable: nothing to fix".into(),
            None => "no single change found that binds it".into(),
        };
        Ok((v, format!("{first}\n{second}")))
    }

    fn simulate(&self, a: &Args) -> Result<(Value, String)> {
        let cluster = (*self.cluster()?).clone();
        let only = super::simulate::only_namespace(&cluster, a.string("namespace")?.as_deref())?;
        let report = engine::simulate::simulate(
            cluster,
            &self.profiles,
            &self.features,
            engine::simulate::SimOptions {
                only,
                detail: engine::simulate::Detail::Full,
                ..Default::default()
            },
        );
        let v = serde_json::to_value(crate::explain::simulation::Report(&report))?;
        let results = v["pods"].as_array().cloned().unwrap_or_default();
        let mut by: BTreeMap<String, usize> = BTreeMap::new();
        for p in &results {
            *by.entry(p["result"].as_str().unwrap_or_default().to_string())
                .or_default() += 1;
        }
        let counts: Vec<String> = by.iter().map(|(k, n)| format!("{n} {k}")).collect();
        Ok((
            v,
            format!(
                "simulated {} pending pod(s) in queue order: {}\nnothing was changed: the simulation ran on a copy of the cluster",
                results.len(),
                if counts.is_empty() {
                    "none".to_string()
                } else {
                    counts.join(", ")
                }
            ),
        ))
    }

    fn deschedule(&self, a: &Args) -> Result<(Value, String)> {
        let text = a.required("policy")?;
        let policy = crate::source::deschedule::parse("policy", &text)?;
        let now = super::deschedule::now(a.string("now")?.as_deref())?;
        let args = super::deschedule::DescheduleArgs {
            policy: "policy".into(),
            output: Output::Json,
            now: None,
            namespace: a.string("namespace")?,
            all_namespaces: false,
            release: self.args.release.clone(),
            config: self.args.config.clone(),
        };
        let out = super::deschedule::render(&args, &policy, now, (*self.cluster()?).clone(), &self.features)?;
        let v: Value = serde_json::from_str(&out)?;
        let s = &v["summary"];
        Ok((
            v.clone(),
            format!(
                "descheduler dry run: {} evicted, {} move(s), {} return(s) to the same node, {} Pending, {} not recreated\nnothing was sent: the evictions were applied in memory",
                s["evicted"], s["moved"], s["sameNode"], s["pending"], s["notRecreated"]
            ),
        ))
    }

    /// `fit`: the manifests' workloads placed on a copy of the cluster, `fit -o json`'s
    /// document (docs/fit-json.md).
    fn fit(&self, a: &Args) -> Result<(Value, String)> {
        let text = a.required("manifests")?;
        let namespace = a.string("namespace")?.unwrap_or_else(|| self.default_ns.clone());
        let manifests = crate::source::manifests::read_str("manifests", &text, &namespace)?;
        let args = super::fit::FitArgs {
            files: Vec::new(),
            namespace: None,
            output: Output::Json,
            release: self.args.release.clone(),
            config: self.args.config.clone(),
            max: a.boolean("max")?.unwrap_or(false),
            replicas: a.count("replicas")?,
            preempt: a.boolean("preempt")?.unwrap_or(false),
            after_pending: a.boolean("afterPending")?.unwrap_or(false),
            no_fixes: a.boolean("noFixes")?.unwrap_or(false),
            max_passes: crate::engine::fit::FitOptions::default().max_passes,
            write: None,
            max_limit: a
                .count("maxLimit")?
                .unwrap_or(crate::engine::fit::FitOptions::default().max_limit),
        };
        let cluster = (*self.cluster()?).clone();
        Ok(super::fit::document(
            &args,
            &manifests,
            cluster,
            &self.features,
            &self.profiles,
            self.describe.clone(),
        ))
    }

    fn cluster_summary(&self) -> Result<(Value, String)> {
        let cluster = self.cluster()?;
        let pending = self.pending(None)?;
        let mut outcomes = serde_json::Map::new();
        for o in Outcome::ALL {
            let n = pending.iter().filter(|e| e.outcome() == o).count();
            outcomes.insert(o.as_str().into(), json!(n));
        }
        let mut namespaces: BTreeMap<&str, usize> = BTreeMap::new();
        for e in &pending {
            *namespaces.entry(e.pod.namespace.as_str()).or_default() += 1;
        }
        let (watch, rv) = {
            let h = lock(&self.held);
            (h.watch.clone(), h.state.resource_version_summary())
        };
        let v = json!({
            "source": self.describe,
            "schedulerVersion": self.features.describe(),
            "profiles": self.profiles.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
            "nodes": cluster.nodes.len(),
            "pods": cluster.pods.len(),
            "pendingPods": pending.len(),
            "outcomes": outcomes,
            "pendingByNamespace": namespaces,
            "resourceVersions": rv,
            "watchEnded": watch,
            "writes": if !self.args.allow_writes {
                "notListed"
            } else {
                match self.mode {
                    WriteMode::Enabled if self.in_memory => "inMemory",
                    WriteMode::Enabled => "enabled",
                    WriteMode::DryRun => "serverDryRun",
                    WriteMode::ReadOnly => "readOnly",
                }
            },
        });
        let not = pending.len()
            - outcomes["Schedulable"]
                .as_u64()
                .map_or(0, |n| usize::try_from(n).unwrap_or(0));
        Ok((
            v,
            format!(
                "{}: {} node(s), {} pod(s), {} pending ({not} not schedulable), scheduler {}\nlist_pods with pendingOnly lists them; explain_pod says why one waits",
                self.describe,
                cluster.nodes.len(),
                cluster.pods.len(),
                pending.len(),
                self.features.describe()
            ),
        ))
    }

    /// `bind` / `preempt`: the first call plans and returns a token, the second sends.
    async fn write(&self, tool: &str, a: &Args) -> Result<(Value, String)> {
        let pod = a.string("pod")?;
        if let Some(token) = a.string("token")? {
            return self.send(tool, &token, pod.as_deref()).await;
        }
        let Some(pod) = pod else {
            bail!("{tool}: argument 'pod' is required to plan (or pass 'token' to send a plan)");
        };
        let key = self.key(&pod);
        let (cluster, ex) = self.explanation(&key)?;
        let mut said = Vec::new();
        let mut warnings = Vec::new();
        let (tool, plan) = if tool == "bind" {
            let node = a.string("node")?;
            let choice = BindChoice {
                node: node.as_deref(),
                force: a.boolean("force")?.unwrap_or(false),
                gang: a.boolean("gang")?.unwrap_or(false),
                timeout: None,
            };
            let plan = plan_bind(
                &cluster,
                &ex,
                &self.profiles,
                &self.features,
                &key,
                &choice,
                &mut |s| match s {
                    Say::Out(l) => said.push(l),
                    Say::Warn(l) => warnings.push(l),
                },
            )?;
            ("bind", plan)
        } else {
            let how = if a.boolean("evict")?.unwrap_or(false) {
                Removal::Evict
            } else {
                Removal::Delete
            };
            let plan = plan_preempt(&cluster, &ex, &key, &self.features, how, &mut |l| said.push(l))?;
            ("preempt", plan)
        };
        let dry = self.mode == WriteMode::DryRun;
        let token = format!("{:032x}", fastrand::u128(..));
        let v = json!({
            "tool": tool,
            "pod": {"namespace": key.namespace, "name": key.name},
            "token": token,
            "action": plan.action,
            "requests": plan.requests.iter().map(|r| r.describe(dry)).collect::<Vec<_>>(),
            "target": self.describe,
            "dryRun": dry,
            "said": said,
            "warnings": warnings,
            "sent": false,
            "ok": Value::Null,
            "report": Value::Null,
        });
        let n = plan.requests.len();
        let action = plan.action.clone();
        {
            let mut plans = lock(&self.plans);
            plans.retain(|_, p| p.made.elapsed() < TOKEN_TTL);
            plans.insert(
                token.clone(),
                Pending {
                    tool,
                    pod: key,
                    plan,
                    made: Instant::now(),
                },
            );
        }
        Ok((
            v,
            format!(
                "planned {action}: {n} request(s) to {}, nothing sent yet\ncall {tool} again with token {token} to check permissions and send exactly these",
                self.describe
            ),
        ))
    }

    async fn send(&self, tool: &str, token: &str, pod: Option<&str>) -> Result<(Value, String)> {
        let pending = lock(&self.plans).remove(token);
        let Some(p) = pending.filter(|p| p.made.elapsed() < TOKEN_TTL) else {
            bail!("{tool}: token '{token}' is unknown, used or expired: plan again (call {tool} without a token)");
        };
        if p.tool != tool {
            bail!(
                "{tool}: token '{token}' was made by {} for {}: nothing was sent",
                p.tool,
                p.pod
            );
        }
        if let Some(pod) = pod
            && self.key(pod) != p.pod
        {
            bail!(
                "{tool}: token '{token}' is for {}, not {}: nothing was sent",
                p.pod,
                self.key(pod)
            );
        }
        if self.mode == WriteMode::ReadOnly {
            bail!("writes are disabled (--readonly); nothing was sent");
        }
        if let Err(refused) = check_plan(&*self.src, &p.plan).await {
            let msgs: Vec<String> = refused.iter().map(ToString::to_string).collect();
            bail!("{}; nothing was sent", msgs.join("; "));
        }
        let dry = self.mode == WriteMode::DryRun;
        let report = execute(&*self.src, &p.plan).await;
        if self.in_memory {
            // the rehearsal's cluster as the writes left it, before the next call reads it
            let state = self.src.load().await?;
            let mut h = lock(&self.held);
            h.state = state;
            h.built = None;
        }
        let text = report.render(dry);
        super::live::outcome(&report).map_err(|e| anyhow!("{e:#}; {}", text.trim().replace('\n', "; ")))?;
        let v = json!({
            "tool": tool,
            "pod": {"namespace": p.pod.namespace, "name": p.pod.name},
            "token": token,
            "action": p.plan.action,
            "requests": p.plan.requests.iter().map(|r| r.describe(dry)).collect::<Vec<_>>(),
            "target": self.describe,
            "dryRun": dry,
            "said": [],
            "warnings": [],
            "sent": true,
            "ok": report.ok(),
            "report": text,
        });
        Ok((
            v,
            format!(
                "sent {}: {} request(s) to {}{}\nthe cluster's answers are in 'report'",
                p.plan.action,
                p.plan.requests.len(),
                self.describe,
                if dry { " as server-side dry runs" } else { "" }
            ),
        ))
    }
}

/// The two-line summary of an explanation's document.
fn summarize(doc: &Value) -> String {
    let pod = format!(
        "{}/{}",
        doc["pod"]["namespace"].as_str().unwrap_or_default(),
        doc["pod"]["name"].as_str().unwrap_or_default()
    );
    let outcome = doc["outcome"].as_str().unwrap_or_default();
    let selected: Vec<&str> = doc["selected"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let first = match (outcome, doc.get("message").and_then(Value::as_str)) {
        ("Schedulable", _) => format!("{pod}: Schedulable: would bind to {}", selected.join(" or ")),
        (o, Some(m)) => format!("{pod}: {o}: {m}"),
        (o, None) => format!("{pod}: {o}"),
    };
    let fixes = doc.get("fixes").and_then(Value::as_array).cloned().unwrap_or_default();
    let second = match fixes.iter().find(|f| f["after"]["result"] == "Binds") {
        Some(f) => format!(
            "fix: {} (checked: the pod then binds; {} fix(es) in 'fixes')",
            f["change"].as_str().unwrap_or_default(),
            fixes.len()
        ),
        None if outcome == "Schedulable" => format!("{} node(s) feasible", doc["score"].as_array().map_or(0, Vec::len)),
        None if fixes.is_empty() => "no fix hint: see 'filter' for each node's reason".to_string(),
        None => format!("{} fix(es) in 'fixes', none binds the pod alone", fixes.len()),
    };
    format!("{first}\n{second}")
}

/// A tool call's arguments, read with errors that name the argument.
struct Args(JsonObject);

impl Args {
    fn string(&self, name: &str) -> Result<Option<String>> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => bail!("argument '{name}' must be a string, not {other}"),
        }
    }

    fn required(&self, name: &str) -> Result<String> {
        self.string(name)?
            .filter(|s| !s.is_empty())
            .ok_or_else(|| anyhow!("argument '{name}' is required"))
    }

    /// A count (a non-negative integer).
    fn count(&self, name: &str) -> Result<Option<usize>> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) if n.as_u64().is_some() => Ok(n.as_u64().and_then(|n| usize::try_from(n).ok())),
            Some(other) => bail!("argument '{name}' must be a non-negative integer, not {other}"),
        }
    }

    fn boolean(&self, name: &str) -> Result<Option<bool>> {
        match self.0.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => bail!("argument '{name}' must be true or false, not {other}"),
        }
    }
}

/// The server handler.
struct Server<S> {
    shared: Arc<Shared<S>>,
}

impl<S: ClusterSource> ServerHandler for Server<S> {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_prompts().build())
            .with_server_info(Implementation::new("kschedtui", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "kschedtui reproduces kube-scheduler {} on {}: explain_pod says why a pod is Pending, plugin by plugin and node by node (the document of `kschedtui explain -o json`, docs/explain-json.md); fix_hints which change would let it bind, each checked by the engine. Pods are NAMESPACE/NAME.",
                self.shared.features.describe(),
                self.shared.describe
            ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(
            tools::list(self.shared.args.allow_writes)
                .into_iter()
                .map(tools::Def::tool)
                .collect(),
        ))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools::list(self.shared.args.allow_writes)
            .into_iter()
            .find(|t| t.name == name)
            .map(tools::Def::tool)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = Args(request.arguments.unwrap_or_default());
        let result = match self.shared.call(&request.name, &args).await {
            Ok((value, summary)) => {
                let mut r = CallToolResult::structured(value);
                r.content = vec![ContentBlock::text(summary)];
                r
            }
            Err(e) => {
                eprintln!("kschedtui mcp: {}: error: {e:#}", request.name);
                CallToolResult::error(vec![ContentBlock::text(format!("{e:#}"))])
            }
        };
        Ok(result.into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        Ok(ListPromptsResult::with_all_items(vec![why_pending_prompt()]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        if request.name != WHY_PENDING {
            return Err(McpError::invalid_params(
                format!("unknown prompt '{}' (prompts: {WHY_PENDING})", request.name),
                None,
            ));
        }
        let pod = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("pod"))
            .and_then(Value::as_str)
            .filter(|p| !p.is_empty())
            .ok_or_else(|| McpError::invalid_params("prompt 'why-pending': argument 'pod' is required", None))?;
        Ok(
            GetPromptResult::new(vec![PromptMessage::new_text(Role::User, why_pending_text(pod))])
                .with_description(format!("Why is {pod} pending, and what would change it"))
                .into(),
        )
    }
}

/// The prompt's name.
pub const WHY_PENDING: &str = "why-pending";

fn why_pending_prompt() -> Prompt {
    Prompt::new(
        WHY_PENDING,
        Some("Explain why a pod is Pending with kschedtui's scheduler engine, then what would change it"),
        Some(vec![
            PromptArgument::new("pod")
                .with_description("The pod: NAMESPACE/NAME")
                .with_required(true),
        ]),
    )
}

/// The prompt's text: explain_pod, then fix_hints.
pub fn why_pending_text(pod: &str) -> String {
    format!(
        "Why is the pod {pod} Pending?\n\n\
         1. Call the tool explain_pod with pod=\"{pod}\". Read `outcome` first (Schedulable, Unschedulable, \
         PreemptionNominates, WaitingAtPermit, RejectedInBindingCycle, SchedulerError, HeldBeforeQueue, \
         OtherScheduler), then `message` (the exact text kube-scheduler writes into the PodScheduled condition), \
         `preEnqueue`, and for the nodes that matter their `filter` entries (plugin, code, reasons). \
         `cluster` says whether the cluster's own scheduler wrote the same.\n\
         2. Call the tool fix_hints with pod=\"{pod}\". Each fix names the blocking reason, the change, the \
         kubectl command that makes it (or why none can), and `after`: the engine's answer once the change is \
         made (Binds with the node, or NotEnough with the new verdict).\n\
         3. Answer in a few sentences: why the pod waits (name the plugins and nodes), then the fix that binds \
         it with its command; say when no single change does. Quote kschedtui's words rather than guessing \
         from events or logs; it reproduces the scheduler, so its answer is the scheduler's."
    )
}
