//! The agent loop: stream the model's answer, hand each tool call to the streaming executor the
//! moment its block is complete, send the results back, repeat until the model is done.

mod compact;
mod conversation;
mod history;
mod launch;
pub mod models;
mod past_calls;
mod prompt_image;
mod request;
mod rewind;
mod session_hooks;
pub(crate) mod setup_command;
mod streaming_input;
mod subagent;
pub mod system_prompt;
mod turn;

pub use crate::tool::{SubagentKind, SubagentReport, SubagentRunner};
pub use compact::CompactError;
pub use conversation::{AnsweredCalls, answer_missing_tool_uses, outcomes_to_user_message, tool_uses_of};
pub use launch::{LaunchError, LaunchOptions, Launched, launch, today};
pub use past_calls::PastCall;
pub use prompt_image::{
    AttachedImage, MAX_ATTACHED_IMAGE_BYTES, MAX_IMAGES_PER_PROMPT, PromptImageError, prepare_prompt_images,
};
pub use request::{body_with_history, build_request};
pub use rewind::{ConversationRewind, RewindError, RewindReport, RewindRequest, SessionFiles};
pub use subagent::{EXPLORE_TOOLS, ModelSubagentRunner};
pub use system_prompt::{FrontEnd, SystemPromptInputs, build_system_prompt};
pub use turn::{Agent, AgentConfig, Denial, MessageObserver, TurnOutcome};
