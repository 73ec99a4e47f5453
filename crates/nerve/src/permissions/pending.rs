//! Permission requests a front-end answers later: the request goes out as an event, the engine
//! waits here, and the front-end's answer (a click, arriving through a command) completes it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use tokio::sync::oneshot;

use nerve_protocol::preview::PermissionPreview;
use serde_json::Value;

use crate::permissions::{PermissionPrompter, PermissionRequest, Previewer, UserAnswer};

/// An answer arrived for a request nobody waits for (already answered, or its call was cancelled).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no permission request {0} is waiting for an answer (it was answered or its call ended)")]
pub struct NotWaiting(pub String);

/// The waiting requests of one session. Cloning shares them.
#[derive(Clone, Default)]
pub struct PendingPrompts {
    waiting: Arc<Mutex<HashMap<String, oneshot::Sender<UserAnswer>>>>,
    previewers: Arc<Mutex<HashMap<String, Arc<dyn Previewer>>>>,
}

impl std::fmt::Debug for PendingPrompts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingPrompts")
            .field("waiting", &self.ids())
            .finish()
    }
}

impl PendingPrompts {
    /// Completes the request `id` with `answer`.
    pub fn answer(&self, id: &str, answer: UserAnswer) -> Result<(), NotWaiting> {
        let sender = self.lock().remove(id).ok_or_else(|| NotWaiting(id.to_string()))?;
        sender.send(answer).map_err(|_| NotWaiting(id.to_string()))
    }

    /// The preview of request `id` for `input`, an edit of its input the user has not sent yet,
    /// computed by the tool as the call would be (`Ok(None)`: the tool has no preview for it).
    pub async fn preview(&self, id: &str, input: Value) -> Result<Option<PermissionPreview>, NotWaiting> {
        if !self.lock().contains_key(id) {
            return Err(NotWaiting(id.to_string()));
        }
        let previewer = self
            .previewers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned();
        match previewer {
            Some(previewer) => Ok(previewer.preview(input).await),
            None => Ok(None),
        }
    }

    /// The waiting requests (their ids, sorted) whose calls `rules` would allow without asking,
    /// each judged as its call was (see [`Previewer::covered_by`]).
    pub async fn covered_by(&self, rules: &[crate::permissions::RuleValue]) -> Vec<String> {
        let waiting: Vec<(String, Arc<dyn Previewer>)> = {
            let ids = self.ids();
            let previewers = self.previewers.lock().unwrap_or_else(PoisonError::into_inner);
            ids.into_iter()
                .filter_map(|id| previewers.get(&id).cloned().map(|p| (id, p)))
                .collect()
        };
        let mut covered = Vec::new();
        for (id, previewer) in waiting {
            if previewer.covered_by(rules).await {
                covered.push(id);
            }
        }
        covered
    }

    /// Denies every waiting request (the window went away).
    pub fn deny_all(&self) {
        let waiting: Vec<_> = self.lock().drain().collect();
        for (_, sender) in waiting {
            let _ = sender.send(UserAnswer::Deny {
                message: Some("the session was closed before the request was answered".into()),
            });
        }
    }

    /// The ids of the waiting requests.
    pub fn ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.lock().keys().cloned().collect();
        ids.sort();
        ids
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, oneshot::Sender<UserAnswer>>> {
        // The map holds no invariant a panic could break half-way.
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Removes a request whose call stopped waiting (cancelled), so a late answer is reported.
struct Registration<'a> {
    prompts: &'a PendingPrompts,
    id: String,
}

impl Drop for Registration<'_> {
    fn drop(&mut self) {
        self.prompts.lock().remove(&self.id);
        self.prompts
            .previewers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.id);
    }
}

#[async_trait]
impl PermissionPrompter for PendingPrompts {
    fn offer_previewer(&self, request_id: &str, previewer: Arc<dyn Previewer>) {
        self.previewers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(request_id.to_string(), previewer);
    }

    async fn ask(&self, request: PermissionRequest) -> UserAnswer {
        let (tx, rx) = oneshot::channel();
        self.lock().insert(request.id.clone(), tx);
        let _registration = Registration {
            prompts: self,
            id: request.id,
        };
        // A dropped sender means the front-end went away: nobody approved, so deny.
        rx.await.unwrap_or(UserAnswer::Deny { message: None })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(id: &str) -> PermissionRequest {
        PermissionRequest {
            id: id.into(),
            tool_use_id: "toolu_1".into(),
            tool_name: "Bash".into(),
            kind: nerve_protocol::ToolKind::Shell,
            display_name: "Bash".into(),
            editable_field: Some(nerve_protocol::EditableField::Command),
            input: json!({"command": "ls"}),
            summary: "ls".into(),
            reason: "asked".into(),
            parts: Vec::new(),
            suggestions: Vec::new(),
            suggestion_note: None,
            destructive: false,
            preview: None,
            agent_label: None,
            agent_call_id: None,
            sandbox: None,
            network: None,
        }
    }

    async fn wait_until_waiting(prompts: &PendingPrompts, id: &str) {
        while !prompts.ids().iter().any(|i| i == id) {
            tokio::task::yield_now().await;
        }
    }

    #[tokio::test]
    async fn an_answer_completes_its_request() {
        let prompts = PendingPrompts::default();
        let asking = tokio::spawn({
            let p = prompts.clone();
            async move { p.ask(request("r1")).await }
        });
        wait_until_waiting(&prompts, "r1").await;
        prompts
            .answer("r1", UserAnswer::AllowOnce { updated_input: None })
            .unwrap();
        assert_eq!(
            asking.await.unwrap(),
            UserAnswer::AllowOnce { updated_input: None }
        );
        assert!(prompts.ids().is_empty());
    }

    #[tokio::test]
    async fn unknown_and_repeated_answers_are_errors() {
        let prompts = PendingPrompts::default();
        let err = prompts
            .answer("nope", UserAnswer::Deny { message: None })
            .unwrap_err();
        assert_eq!(err, NotWaiting("nope".into()));
        let asking = tokio::spawn({
            let p = prompts.clone();
            async move { p.ask(request("r2")).await }
        });
        wait_until_waiting(&prompts, "r2").await;
        prompts.answer("r2", UserAnswer::Deny { message: None }).unwrap();
        assert!(prompts.answer("r2", UserAnswer::Deny { message: None }).is_err());
        asking.await.unwrap();
    }

    #[tokio::test]
    async fn a_cancelled_call_stops_waiting_and_closing_denies_the_rest() {
        let prompts = PendingPrompts::default();
        let cancelled = tokio::spawn({
            let p = prompts.clone();
            async move { p.ask(request("r3")).await }
        });
        wait_until_waiting(&prompts, "r3").await;
        cancelled.abort();
        let _ = cancelled.await;
        assert!(prompts.ids().is_empty(), "the cancelled call's request is gone");

        let open = tokio::spawn({
            let p = prompts.clone();
            async move { p.ask(request("r4")).await }
        });
        wait_until_waiting(&prompts, "r4").await;
        prompts.deny_all();
        assert!(matches!(open.await.unwrap(), UserAnswer::Deny { .. }));
    }
}
