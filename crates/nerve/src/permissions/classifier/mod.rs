//! The auto-mode classifier: a fast model decides whether a call that would ask the user can run
//! without asking.
//!
//! Two stages, as in Claude Code: a quick verdict (one word, a few tokens) settles the clear
//! cases; only an unclear answer gets a careful look (a short reasoning ending in a
//! `VERDICT:` line). The judge sees the user's recent prompts ([`RecentIntent`], never tool
//! output), the project directories and the tool's classifier input.
//!
//! It fails closed: a model error, a timeout, an interrupted call, an answer in the wrong form or
//! an input too long to judge whole all end in asking the user.

mod intent;
mod prompt;
mod verdict;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use crate::model::client::{ModelClient, ModelConfig};
use crate::model::error::ModelError;
use crate::model::small::{ClientSmallModel, SmallModel};
use crate::permissions::{AutoClassifier, ClassifierRequest, ClassifierVerdict};

pub use intent::{MAX_PROMPT_CHARS, MAX_PROMPTS, RecentIntent};
pub use prompt::{ActionView, MAX_ACTION_CHARS, careful_system, quick_system, user_message};
pub use verdict::{StageVerdict, parse_careful, parse_quick};

/// Output limit of the quick stage: one word.
pub const QUICK_MAX_TOKENS: u32 = 16;
/// Output limit of the careful stage: a few sentences and the verdict line.
pub const CAREFUL_MAX_TOKENS: u32 = 400;
/// Retries of a failed classifier request.
pub const CLASSIFIER_RETRIES: u32 = 1;
/// How long one classification may take, both stages together.
pub const CLASSIFIER_TIMEOUT: Duration = Duration::from_secs(10);

/// [`AutoClassifier`] over a fast model.
#[derive(Debug, Clone)]
pub struct ModelClassifier {
    quick: Arc<dyn SmallModel>,
    careful: Arc<dyn SmallModel>,
    intent: RecentIntent,
    timeout: Duration,
}

/// Which stage settled the call (for the log).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Quick,
    Careful,
}

impl Stage {
    fn as_str(self) -> &'static str {
        match self {
            Stage::Quick => "quick",
            Stage::Careful => "careful",
        }
    }
}

/// How a classification ended, before it becomes a [`ClassifierVerdict`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Allow(Stage),
    Ask(Stage),
    Unclear,
    ModelError(Stage),
    TimedOut,
    TooLong,
}

impl ModelClassifier {
    /// A classifier over two models: `quick` answers the one-word stage and `careful` the
    /// reasoning stage (the same model with different output limits, normally). `intent` is the
    /// handle the agent records the user's prompts into.
    pub fn new(quick: Arc<dyn SmallModel>, careful: Arc<dyn SmallModel>, intent: RecentIntent) -> Self {
        Self {
            quick,
            careful,
            intent,
            timeout: CLASSIFIER_TIMEOUT,
        }
    }

    /// Both stages over `client` with `model` and the stage limits [`QUICK_MAX_TOKENS`] and
    /// [`CAREFUL_MAX_TOKENS`].
    pub fn over_client(client: ModelClient, model: &str, intent: RecentIntent) -> Self {
        Self::new(
            Arc::new(ClientSmallModel::new(client.clone(), model, QUICK_MAX_TOKENS)),
            Arc::new(ClientSmallModel::new(client, model, CAREFUL_MAX_TOKENS)),
            intent,
        )
    }

    /// Both stages over a client of their own built from `config`, which retries at most
    /// [`CLASSIFIER_RETRIES`] times: the whole classification has [`CLASSIFIER_TIMEOUT`], and a
    /// user waiting for a failing API is better asked than kept waiting.
    pub fn over_config(
        mut config: ModelConfig,
        model: &str,
        intent: RecentIntent,
    ) -> Result<Self, ModelError> {
        config.retry.max_retries = config.retry.max_retries.min(CLASSIFIER_RETRIES);
        Ok(Self::over_client(ModelClient::new(config)?, model, intent))
    }

    /// Replaces the time limit of one classification.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    async fn judge(&self, request: &ClassifierRequest<'_>) -> Outcome {
        if request.classifier_input.chars().count() > MAX_ACTION_CHARS {
            return Outcome::TooLong;
        }
        let prompts = self.intent.prompts();
        let message = user_message(&ActionView {
            prompts: &prompts,
            tool_name: request.tool_name,
            action: request.classifier_input,
            cwd: request.cwd,
            working_dirs: request.working_dirs,
        });
        match self.quick.complete(&quick_system(), &message).await {
            Ok(answer) => match parse_quick(&answer) {
                StageVerdict::Allow => return Outcome::Allow(Stage::Quick),
                StageVerdict::Ask => return Outcome::Ask(Stage::Quick),
                StageVerdict::Unclear => {}
            },
            Err(_) => return Outcome::ModelError(Stage::Quick),
        }
        match self.careful.complete(&careful_system(), &message).await {
            Ok(answer) => match parse_careful(&answer) {
                StageVerdict::Allow => Outcome::Allow(Stage::Careful),
                StageVerdict::Ask => Outcome::Ask(Stage::Careful),
                StageVerdict::Unclear => Outcome::Unclear,
            },
            Err(_) => Outcome::ModelError(Stage::Careful),
        }
    }
}

#[async_trait]
impl AutoClassifier for ModelClassifier {
    async fn classify(&self, request: &ClassifierRequest<'_>) -> ClassifierVerdict {
        let outcome = tokio::time::timeout(self.timeout, self.judge(request))
            .await
            .unwrap_or(Outcome::TimedOut);
        // The class of the verdict only: the input and the model's words may hold secrets.
        let tool = request.tool_name;
        match outcome {
            Outcome::Allow(stage) => {
                tracing::info!(
                    tool,
                    stage = stage.as_str(),
                    verdict = "allow",
                    "auto-mode classifier"
                );
                ClassifierVerdict::Allow {
                    reason: format!(
                        "the auto-mode classifier judged it within the user's request ({} check)",
                        stage.as_str()
                    ),
                }
            }
            Outcome::Ask(stage) => {
                tracing::info!(
                    tool,
                    stage = stage.as_str(),
                    verdict = "ask",
                    "auto-mode classifier"
                );
                ask(format!(
                    "the auto-mode classifier wants the user to decide ({} check)",
                    stage.as_str()
                ))
            }
            Outcome::Unclear => {
                tracing::info!(tool, verdict = "unclear", "auto-mode classifier");
                ask("the auto-mode classifier gave no clear verdict".into())
            }
            Outcome::ModelError(stage) => {
                tracing::warn!(
                    tool,
                    stage = stage.as_str(),
                    verdict = "error",
                    "auto-mode classifier"
                );
                ask("the auto-mode classifier could not reach its model".into())
            }
            Outcome::TimedOut => {
                tracing::warn!(tool, verdict = "timeout", "auto-mode classifier");
                ask(format!(
                    "the auto-mode classifier took longer than {} s",
                    self.timeout.as_secs_f32()
                ))
            }
            Outcome::TooLong => {
                tracing::info!(tool, verdict = "too_long", "auto-mode classifier");
                ask(format!(
                    "the call is longer than the {MAX_ACTION_CHARS} characters the auto-mode classifier judges"
                ))
            }
        }
    }
}

fn ask(reason: String) -> ClassifierVerdict {
    ClassifierVerdict::Ask { reason }
}

#[cfg(test)]
mod tests;
