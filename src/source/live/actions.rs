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
use crate::source::write::{Outcome, WriteError, WriteMode, WriteRequest, node_from_conflict, pdb_from_message};

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
        pod: &ObjectKey,
    ) -> Result<(u16, Vec<u8>), WriteError> {
        let req = http::Request::builder()
            .method(method)
            .uri(path)
            .header(CONTENT_TYPE, content_type)
            .body(kube::client::Body::from(body))
            .map_err(|e| WriteError::Transport(format!("cannot build the request: {e}")))?;
        let timeout = |_| WriteError::Timeout {
            what: what.to_string(),
            pod: pod.clone(),
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
                req.pod(),
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

    /// Where a pod is bound, read back after a 409 whose message did not say.
    async fn bound_node(&self, pod: &ObjectKey) -> Option<String> {
        let path = format!("/api/v1/namespaces/{}/pods/{}", pod.namespace, pod.name);
        let (code, bytes) = self
            .call("GET", &path, "application/json", Vec::new(), "read the pod", pod)
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
                req.pod(),
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
