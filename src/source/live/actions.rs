//! Sends [`WriteRequest`]s and SelfSubjectAccessReviews, and turns every answer into an
//! [`Outcome`] or a [`WriteError`]: 201/200 done, 404 gone, 409 already bound (naming the
//! node), 403 naming the verb and resource, 429 naming the PodDisruptionBudget, timeouts.
//! Nothing is retried: the client is built with kube's retry layer off.

use std::time::Duration;

use http::header::CONTENT_TYPE;
use kube::core::Status;
use serde_json::{Value, json};

use super::error::{ErrorContext, classify};
use crate::model::ObjectKey;
use crate::source::write::{
    ANN_BIND_COMPLETED, ANN_SELECTED_NODE, AwaitVolumes, Edit, Outcome, Target, Update, WriteError, WriteMode,
    WriteRequest, node_from_conflict, pdb_from_message,
};

/// A cluster's text made safe for a terminal: control characters shown escaped.
fn visible(s: &str) -> String {
    s.chars()
        .map(|c| {
            if (c.is_control() && c != ' ') || ('\u{80}'..='\u{9f}').contains(&c) {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Reports how a long request (VolumeBinding's wait) is going, one line at a time.
pub type WriteProgress = std::sync::Arc<dyn Fn(&str) + Send + Sync>;

/// What an action needs from the source.
pub struct ActionContext<'a> {
    /// Client.
    pub client: &'a kube::Client,
    /// Server, for messages.
    pub server: &'a str,
    /// Context, for messages.
    pub context: &'a str,
    /// Write mode.
    pub mode: WriteMode,
    /// Time allowed for an answer.
    pub timeout: Duration,
    /// The version of resource.k8s.io the server serves ("v1" unless discovery found an
    /// older one).
    pub resource_version: String,
    /// Where a wait reports its progress.
    pub progress: Option<WriteProgress>,
}

impl ActionContext<'_> {
    fn transport(&self, e: &kube::Error, doing: &str) -> WriteError {
        let cx = ErrorContext {
            server: self.server,
            context: self.context,
            doing,
            verb: "",
            resource: "",
        };
        WriteError::Transport(classify(e, &cx).to_string())
    }

    /// Sends a raw request; returns the status code and the body.
    async fn call(
        &self,
        method: &str,
        path: &str,
        content_type: &str,
        body: Vec<u8>,
        what: &str,
        object: (&'static str, &ObjectKey),
    ) -> Result<(u16, Vec<u8>), WriteError> {
        let req = http::Request::builder()
            .method(method)
            .uri(path)
            .header(CONTENT_TYPE, content_type)
            .body(kube::client::Body::from(body))
            .map_err(|e| WriteError::Transport(format!("cannot build the request: {e}")))?;
        let timeout = |_| WriteError::Timeout {
            what: what.to_string(),
            kind: object.0,
            pod: object.1.clone(),
            secs: self.timeout.as_secs(),
        };
        let call = async {
            let resp = self.client.send(req).await.map_err(|e| self.transport(&e, what))?;
            let code = resp.status().as_u16();
            let bytes = resp
                .into_body()
                .collect_bytes()
                .await
                .map_err(|e| self.transport(&e, what))?;
            Ok((code, bytes.to_vec()))
        };
        tokio::time::timeout(self.timeout, call).await.map_err(timeout)?
    }

    /// Sends one write.
    pub async fn send(&self, req: &WriteRequest) -> Result<Outcome, WriteError> {
        if self.mode == WriteMode::ReadOnly {
            return Err(WriteError::ReadOnly);
        }
        match req {
            WriteRequest::Update(u) => return self.update(req, u).await,
            WriteRequest::AwaitVolumes(w) => return self.await_volumes(w).await,
            _ => {}
        }
        let dry = self.mode == WriteMode::DryRun;
        let now = k8s_openapi::jiff::Timestamp::now().to_string();
        let body = serde_json::to_vec(&req.body(dry, &now))
            .map_err(|e| WriteError::Transport(format!("cannot encode the request: {e}")))?;
        let what = req.summary();
        let (code, bytes) = self
            .call(
                req.method(),
                &req.path_and_query(dry),
                req.content_type(),
                body,
                &what,
                ("pod", req.pod()),
            )
            .await?;
        if (200..300).contains(&code) {
            return Ok(Outcome::Done { code });
        }
        let status: Status = serde_json::from_slice(&bytes).unwrap_or_else(|_| Status {
            code,
            message: String::from_utf8_lossy(&bytes).trim().chars().take(300).collect(),
            ..Default::default()
        });
        let pod = req.pod().clone();
        Err(match code {
            404 if matches!(req, WriteRequest::Delete { .. } | WriteRequest::Evict { .. }) => {
                return Ok(Outcome::AlreadyGone);
            }
            404 => WriteError::NotFound { pod },
            409 if matches!(req, WriteRequest::Bind { .. }) => match node_from_conflict(&status.message) {
                Some(node) => WriteError::AlreadyBound { pod, node },
                None => match self.bound_node(&pod).await {
                    Some(node) => WriteError::AlreadyBound { pod, node },
                    None => WriteError::Conflict {
                        message: status.message,
                    },
                },
            },
            409 => WriteError::Conflict {
                message: status.message,
            },
            403 => WriteError::Forbidden {
                access: req.access().to_string(),
                message: status.message,
            },
            429 if matches!(req, WriteRequest::Evict { .. }) => {
                let causes: Vec<String> = status
                    .details
                    .as_ref()
                    .map(|d| d.causes.iter().map(|c| c.message.clone()).collect())
                    .unwrap_or_default();
                let pdb = causes.iter().find_map(|c| pdb_from_message(c));
                let message = if causes.is_empty() {
                    status.message
                } else {
                    causes.join("; ")
                };
                WriteError::PdbBlocked { pod, pdb, message }
            }
            429 => WriteError::TooManyRequests {
                message: status.message,
            },
            401 => WriteError::Transport(format!(
                "{} rejected the credentials of context '{}' (401 Unauthorized); they have probably expired: log in again and retry",
                self.server, self.context
            )),
            _ => WriteError::Api {
                what,
                code,
                reason: status.reason,
                message: status.message,
            },
        })
    }

    /// A PreBind update: the object read, the plugin's edit made on it, and the whole object
    /// put back. A DynamicResources update is retried on 409 Conflict, reading the claim again
    /// each time, as `bindClaim`'s `RetryOnConflict` does (5 tries); VolumeBinding's is not.
    async fn update(&self, req: &WriteRequest, u: &Update) -> Result<Outcome, WriteError> {
        let dry = self.mode == WriteMode::DryRun;
        let what = req.summary();
        let path = req.path_at(&self.resource_version);
        let get_path = if u.status {
            path.trim_end_matches("/status").to_string()
        } else {
            path.clone()
        };
        let object = req.object();
        let kind = u.target.kind().name();
        let tries = if u.target == Target::ResourceClaim { 5 } else { 1 };
        let mut last = None;
        for _ in 0..tries {
            let (code, bytes) = self
                .call("GET", &get_path, "application/json", Vec::new(), &what, object)
                .await?;
            if code == 404 {
                return Err(WriteError::ObjectNotFound {
                    kind,
                    key: u.key.clone(),
                });
            }
            if !(200..300).contains(&code) {
                return Err(self.api_error(req, code, &bytes));
            }
            let mut obj: Value = serde_json::from_slice(&bytes).map_err(|e| {
                WriteError::Transport(format!(
                    "the server's answer to reading {kind} {} is not JSON: {e}",
                    u.key
                ))
            })?;
            if u.target == Target::ResourceClaim {
                if !obj["metadata"]["deletionTimestamp"].is_null() {
                    return Err(WriteError::Conflict {
                        message: format!("claim {} got deleted in the meantime", u.key),
                    });
                }
                if matches!(
                    &u.edit,
                    Edit::Reserve {
                        allocation: Some(_),
                        ..
                    }
                ) && !obj["status"]["allocation"].is_null()
                {
                    return Err(WriteError::Conflict {
                        message: format!("claim {} got allocated elsewhere in the meantime", u.key),
                    });
                }
            }
            let now = k8s_openapi::jiff::Timestamp::now().to_string();
            u.edit.apply(&mut obj, &now);
            let body = serde_json::to_vec(&obj)
                .map_err(|e| WriteError::Transport(format!("cannot encode the request: {e}")))?;
            let put = if dry {
                format!("{path}?dryRun=All")
            } else {
                path.clone()
            };
            let (code, bytes) = self.call("PUT", &put, "application/json", body, &what, object).await?;
            if (200..300).contains(&code) {
                return Ok(Outcome::Done { code });
            }
            let err = self.api_error(req, code, &bytes);
            if code != 409 {
                return Err(err);
            }
            last = Some(err);
        }
        Err(last.unwrap_or_else(|| WriteError::Conflict { message: what }))
    }

    /// A refusal of a PreBind update, by code.
    fn api_error(&self, req: &WriteRequest, code: u16, bytes: &[u8]) -> WriteError {
        let status: Status = serde_json::from_slice(bytes).unwrap_or_else(|_| Status {
            code,
            message: String::from_utf8_lossy(bytes).trim().chars().take(300).collect(),
            ..Default::default()
        });
        match code {
            409 => WriteError::Conflict {
                message: status.message,
            },
            403 => WriteError::Forbidden {
                access: req.access().to_string(),
                message: status.message,
            },
            401 => WriteError::Transport(format!(
                "{} rejected the credentials of context '{}' (401 Unauthorized); log in again and retry",
                self.server, self.context
            )),
            _ => WriteError::Api {
                what: req.summary(),
                code,
                reason: status.reason,
                message: status.message,
            },
        }
    }

    /// VolumeBinding's wait (`BindPodVolumes` after its updates): every second, from one
    /// second after the updates, each claim is read until all are bound (`spec.volumeName`
    /// set and `pv.kubernetes.io/bind-completed` there), for at most `timeout_secs`; a claim to
    /// provision whose selected-node annotation is gone or changed is a failed provisioning,
    /// a volume whose claimRef was reset a failed binding (`checkBindings`). Ctrl-C stops the
    /// wait; the writes made stay.
    async fn await_volumes(&self, w: &AwaitVolumes) -> Result<Outcome, WriteError> {
        let dry = self.mode == WriteMode::DryRun;
        if dry {
            return Ok(Outcome::NotWaited(
                "a server-side dry run changes nothing, so no claim gets bound".to_string(),
            ));
        }
        let start = std::time::Instant::now();
        let deadline = start + Duration::from_secs(w.timeout_secs);
        let mut state = String::new();
        loop {
            let tick = tokio::time::sleep(Duration::from_secs(1));
            tokio::select! {
                () = tick => {}
                r = tokio::signal::ctrl_c() => {
                    if r.is_ok() {
                        return Err(WriteError::Interrupted {
                            what: format!("waiting for the claims of {} to be bound", w.pod),
                        });
                    }
                }
            }
            if std::time::Instant::now() >= deadline {
                return Err(WriteError::VolumesNotBound {
                    message: "context deadline exceeded".into(),
                    state,
                });
            }
            let mut waiting = Vec::new();
            for c in &w.claims {
                let path = Target::PersistentVolumeClaim.path(&c.claim, "v1");
                let what = format!("read claim {}", c.claim);
                let (code, bytes) = self
                    .call("GET", &path, "application/json", Vec::new(), &what, ("pvc", &c.claim))
                    .await?;
                if code == 404 {
                    return Err(WriteError::VolumesNotBound {
                        message: format!(
                            "failed to check provisioning pvc: persistentvolumeclaims {:?} not found",
                            c.claim.name.as_str()
                        ),
                        state,
                    });
                }
                let pvc: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
                let ann = &pvc["metadata"]["annotations"];
                if c.volume.is_none() && ann[ANN_SELECTED_NODE].as_str() != Some(w.node.as_str()) {
                    return Err(WriteError::VolumesNotBound {
                        message: format!("provisioning failed for PVC {:?}", c.claim.name.as_str()),
                        state: self.claim_events(&c.claim).await,
                    });
                }
                let bound = pvc["spec"]["volumeName"].as_str().is_some_and(|v| !v.is_empty())
                    && !ann[ANN_BIND_COMPLETED].is_null();
                if !bound {
                    let phase = pvc["status"]["phase"].as_str().unwrap_or("Pending").to_string();
                    waiting.push(format!("{} {phase}{}", c.claim, self.claim_events(&c.claim).await));
                }
            }
            if waiting.is_empty() {
                return Ok(Outcome::Waited {
                    secs: start.elapsed().as_secs(),
                });
            }
            state = format!("still unbound: {}", waiting.join("; "));
            if let Some(p) = &self.progress {
                p(&format!(
                    "waiting {} s of at most {} s for claims to be bound: {}",
                    start.elapsed().as_secs(),
                    w.timeout_secs,
                    waiting.join("; ")
                ));
            }
        }
    }

    /// The newest event about a claim (`ExternalProvisioning`, `ProvisioningFailed`, ...), as
    /// ` (reason: message)`; "" when there is none or it cannot be read.
    async fn claim_events(&self, claim: &ObjectKey) -> String {
        let path = format!(
            "/api/v1/namespaces/{}/events?fieldSelector=involvedObject.kind%3DPersistentVolumeClaim,involvedObject.name%3D{}",
            claim.namespace, claim.name
        );
        let Ok((200, bytes)) = self
            .call(
                "GET",
                &path,
                "application/json",
                Vec::new(),
                "read the claim's events",
                ("pvc", claim),
            )
            .await
        else {
            return String::new();
        };
        let v: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        let newest = v["items"].as_array().and_then(|items| {
            items.iter().max_by_key(|e| {
                e["lastTimestamp"]
                    .as_str()
                    .or(e["eventTime"].as_str())
                    .unwrap_or("")
                    .to_string()
            })
        });
        match newest {
            Some(e) => format!(
                " ({}: {})",
                e["reason"].as_str().unwrap_or(""),
                visible(e["message"].as_str().unwrap_or(""))
            ),
            None => String::new(),
        }
    }

    /// Where a pod is bound, read back after a 409 whose message did not say.
    async fn bound_node(&self, pod: &ObjectKey) -> Option<String> {
        let path = format!("/api/v1/namespaces/{}/pods/{}", pod.namespace, pod.name);
        let (code, bytes) = self
            .call(
                "GET",
                &path,
                "application/json",
                Vec::new(),
                "read the pod",
                ("pod", pod),
            )
            .await
            .ok()?;
        if code != 200 {
            return None;
        }
        let v: Value = serde_json::from_slice(&bytes).ok()?;
        v["spec"]["nodeName"]
            .as_str()
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    }

    /// Asks the server whether the request is allowed (SelfSubjectAccessReview).
    pub async fn check(&self, req: &WriteRequest) -> Result<(), WriteError> {
        if self.mode == WriteMode::ReadOnly {
            return Err(WriteError::ReadOnly);
        }
        let a = req.access();
        let mut attrs = json!({
            "namespace": a.namespace,
            "verb": a.verb,
            "group": a.group,
            "resource": a.resource,
            "name": a.name,
        });
        if !a.subresource.is_empty() {
            attrs["subresource"] = json!(a.subresource);
        }
        let body = json!({
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SelfSubjectAccessReview",
            "spec": { "resourceAttributes": attrs },
        });
        let what = format!("ask whether it may {a}");
        let (code, bytes) = match self
            .call(
                "POST",
                "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                "application/json",
                serde_json::to_vec(&body).unwrap_or_default(),
                &what,
                req.object(),
            )
            .await
        {
            // a review changes nothing: no "may or may not have been applied" here
            Err(WriteError::Timeout { secs, .. }) => {
                return Err(WriteError::Transport(format!(
                    "no answer within {secs}s to the permission check ({a}); check the network or retry with a longer --request-timeout"
                )));
            }
            r => r?,
        };
        let v: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        match code {
            200 | 201 => {
                if v["status"]["allowed"].as_bool() == Some(true) {
                    Ok(())
                } else {
                    let mut reason = v["status"]["reason"].as_str().unwrap_or("").to_string();
                    if let Some(e) = v["status"]["evaluationError"].as_str().filter(|e| !e.is_empty()) {
                        reason = if reason.is_empty() {
                            format!("evaluation error: {e}")
                        } else {
                            format!("{reason}; evaluation error: {e}")
                        };
                    }
                    Err(WriteError::Denied {
                        access: a.to_string(),
                        reason,
                    })
                }
            }
            403 => Err(WriteError::Forbidden {
                access: "create selfsubjectaccessreviews (to check permissions)".into(),
                message: v["message"].as_str().unwrap_or("").to_string(),
            }),
            _ => Err(WriteError::Api {
                what,
                code,
                reason: v["reason"].as_str().unwrap_or("").to_string(),
                message: v["message"].as_str().unwrap_or("").to_string(),
            }),
        }
    }
}

/// The resources a group/version serves (API discovery); empty when it is not served (404,
/// or 403: discovery refused).
pub async fn served_resources(
    client: &kube::Client,
    group_version: &str,
    cx: &ErrorContext<'_>,
) -> Result<Vec<String>, super::error::LiveError> {
    use super::answer::{Failure, get_json};
    let req = http::Request::get(format!("/apis/{group_version}"))
        .body(Vec::new())
        .map_err(|e| super::error::LiveError::Other {
            server: cx.server.to_string(),
            doing: cx.doing.to_string(),
            cause: e.to_string(),
        })?;
    match get_json::<k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResourceList>(client, req).await {
        Ok(list) => Ok(list.resources.into_iter().map(|r| r.name).collect()),
        Err(Failure::Kube(kube::Error::Api(s))) if s.code == 404 || s.code == 403 => Ok(Vec::new()),
        Err(e) => Err(e.error(cx)),
    }
}
