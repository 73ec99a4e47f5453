//! Nerve's events and types in the Agent Client Protocol's words, and back: pure functions, so
//! the mapping is tested without a connection.

use std::path::{Path, PathBuf};

use agent_client_protocol::v1::schema as acp;
use nerve_protocol::diff::{DiffTag, FileDiff};
use nerve_protocol::message::HistoryMessage;
use nerve_protocol::prompt::AttachedImage;
use nerve_protocol::{
    PermissionMode, PermissionPreview, PermissionRequest, ResultBlock, RuleScope, TodoItem, TodoStatus,
    ToolKind, TurnEnd, UserAnswer,
};

/// The ACP kind of a Nerve tool kind (clients pick icons and layouts by it).
pub fn tool_kind(kind: &ToolKind) -> acp::ToolKind {
    match kind {
        ToolKind::Shell => acp::ToolKind::Execute,
        ToolKind::FileEdit | ToolKind::FileWrite => acp::ToolKind::Edit,
        ToolKind::Read => acp::ToolKind::Read,
        ToolKind::Search => acp::ToolKind::Search,
        ToolKind::Fetch => acp::ToolKind::Fetch,
        ToolKind::Plan => acp::ToolKind::SwitchMode,
        ToolKind::Agent | ToolKind::Todo => acp::ToolKind::Think,
        ToolKind::Mcp { .. } | ToolKind::Other => acp::ToolKind::Other,
    }
}

/// A tool call's title: the tool as users read it and the call's one-line summary.
pub fn tool_title(display_name: &str, summary: &str) -> String {
    if summary.trim().is_empty() {
        display_name.to_string()
    } else {
        format!("{display_name}: {summary}")
    }
}

/// Why the turn ended, as a stop reason; `None` for a turn that failed (answered as an error).
pub fn stop_reason(end: &TurnEnd) -> Option<acp::StopReason> {
    match end {
        TurnEnd::EndTurn | TurnEnd::StoppedByHook | TurnEnd::Interrupted => Some(acp::StopReason::EndTurn),
        TurnEnd::MaxTokens => Some(acp::StopReason::MaxTokens),
        TurnEnd::MaxTurns => Some(acp::StopReason::MaxTurnRequests),
        TurnEnd::Aborted => Some(acp::StopReason::Cancelled),
        TurnEnd::Refusal => Some(acp::StopReason::Refusal),
        TurnEnd::Error => None,
    }
}

/// The permission modes a client can switch between, as ACP session modes.
pub fn modes(current: PermissionMode) -> acp::SessionModeState {
    let mode = |m: PermissionMode, name: &str, description: &str| {
        acp::SessionMode::new(m.as_str().to_string(), name.to_string()).description(description.to_string())
    };
    acp::SessionModeState::new(
        current.as_str().to_string(),
        vec![
            mode(
                PermissionMode::Default,
                "Ask",
                "Ask before edits and commands the rules do not allow",
            ),
            mode(
                PermissionMode::AcceptEdits,
                "Accept edits",
                "Edit files in the project without asking",
            ),
            mode(
                PermissionMode::Plan,
                "Plan",
                "Read and plan; change nothing until the plan is approved",
            ),
            mode(
                PermissionMode::Auto,
                "Auto",
                "A classifier decides what would ask",
            ),
            mode(PermissionMode::DontAsk, "Don't ask", "Deny what would ask"),
            mode(
                PermissionMode::BypassPermissions,
                "Bypass",
                "Run everything without asking",
            ),
        ],
    )
}

/// The task list as an ACP plan.
pub fn plan(todos: &[TodoItem]) -> acp::Plan {
    acp::Plan::new(
        todos
            .iter()
            .map(|t| {
                let status = match t.status {
                    TodoStatus::Pending => acp::PlanEntryStatus::Pending,
                    TodoStatus::InProgress => acp::PlanEntryStatus::InProgress,
                    TodoStatus::Completed => acp::PlanEntryStatus::Completed,
                };
                acp::PlanEntry::new(t.content.clone(), acp::PlanEntryPriority::Medium, status)
            })
            .collect(),
    )
}

/// What a prompt's blocks give the session: the text (resources the client attached written out
/// as blocks the model can tell from the user's words) and the images.
pub fn prompt_input(blocks: &[acp::ContentBlock]) -> (String, Vec<AttachedImage>) {
    let mut text = String::new();
    let mut images = Vec::new();
    let mut attached = String::new();
    for block in blocks {
        match block {
            acp::ContentBlock::Text(t) => text.push_str(&t.text),
            acp::ContentBlock::Image(image) => images.push(AttachedImage {
                name: image.uri.clone().unwrap_or_else(|| "image".to_string()),
                data: image.data.clone(),
            }),
            acp::ContentBlock::ResourceLink(link) => {
                text.push_str(&format!("@{}", file_path(&link.uri)));
            }
            acp::ContentBlock::Resource(resource) => {
                if let acp::EmbeddedResourceResource::TextResourceContents(contents) = &resource.resource {
                    attached.push_str(&format!(
                        "\n\n<attached-file path=\"{}\">\n{}\n</attached-file>",
                        file_path(&contents.uri),
                        contents.text
                    ));
                }
            }
            _ => {}
        }
    }
    text.push_str(&attached);
    (text, images)
}

/// A `file://` URI's path; anything else as it is.
fn file_path(uri: &str) -> String {
    uri.strip_prefix("file://").unwrap_or(uri).to_string()
}

/// An absolute path for a diff's file (ACP wants absolute paths).
fn absolute(cwd: &Path, path: &str) -> PathBuf {
    let path = Path::new(path);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    }
}

/// A file diff as ACP's diff content: the whole texts when the engine has them, else the hunks'
/// lines (the parts that changed, with their context).
pub fn diff_content(
    cwd: &Path,
    diff: &FileDiff,
    texts: Option<(Option<&str>, &str)>,
) -> acp::ToolCallContent {
    let path = absolute(cwd, &diff.path);
    let (old, new) = match texts {
        Some((old, new)) => (old.map(str::to_string), new.to_string()),
        None => {
            let (mut old, mut new) = (String::new(), String::new());
            for hunk in &diff.hunks {
                for line in &hunk.lines {
                    match line.tag {
                        DiffTag::Context => {
                            old.push_str(&line.text);
                            old.push('\n');
                            new.push_str(&line.text);
                            new.push('\n');
                        }
                        DiffTag::Delete => {
                            old.push_str(&line.text);
                            old.push('\n');
                        }
                        DiffTag::Insert => {
                            new.push_str(&line.text);
                            new.push('\n');
                        }
                    }
                }
            }
            (Some(old).filter(|o| !o.is_empty()), new)
        }
    };
    acp::Diff::new(path, new).old_text(old).into()
}

/// What a permission request shows beside its title: the change it would make.
pub fn request_content(cwd: &Path, request: &PermissionRequest) -> Vec<acp::ToolCallContent> {
    match &request.preview {
        Some(PermissionPreview::FileChange {
            diff,
            old_text,
            new_text,
        }) => vec![diff_content(
            cwd,
            diff,
            new_text.as_deref().map(|new| (old_text.as_deref(), new)),
        )],
        _ => Vec::new(),
    }
}

/// The choices a permission request offers: once, always (with the rules the engine suggests,
/// when it has some), or not.
pub fn permission_options(request: &PermissionRequest) -> Vec<acp::PermissionOption> {
    let mut options = vec![acp::PermissionOption::new(
        "allow_once",
        "Allow once",
        acp::PermissionOptionKind::AllowOnce,
    )];
    if !request.suggestions.is_empty() {
        options.push(acp::PermissionOption::new(
            "allow_always",
            format!("Always allow ({})", request.suggestions.join(", ")),
            acp::PermissionOptionKind::AllowAlways,
        ));
    }
    options.push(acp::PermissionOption::new(
        "reject_once",
        "Reject",
        acp::PermissionOptionKind::RejectOnce,
    ));
    options
}

/// The client's choice as the session's answer. "Always" keeps the suggested rules in the
/// project's local settings, as the desktop app does; anything else (a cancelled request, an
/// unknown option) denies.
pub fn answer(request: &PermissionRequest, outcome: &acp::RequestPermissionOutcome) -> UserAnswer {
    let chosen = match outcome {
        acp::RequestPermissionOutcome::Selected(selected) => selected.option_id.0.to_string(),
        _ => String::new(),
    };
    match chosen.as_str() {
        "allow_once" => UserAnswer::AllowOnce { updated_input: None },
        "allow_always" if !request.suggestions.is_empty() => UserAnswer::AlwaysAllow {
            rules: request.suggestions.clone(),
            scope: RuleScope::ProjectLocal,
            updated_input: None,
        },
        "reject_once" => UserAnswer::Deny { message: None },
        _ => UserAnswer::Deny {
            message: Some("The user cancelled the request.".into()),
        },
    }
}

/// A finished call's result blocks as ACP content (text only: images are the model's).
pub fn result_content(blocks: &[ResultBlock]) -> Vec<acp::ToolCallContent> {
    blocks
        .iter()
        .filter_map(|b| match b {
            ResultBlock::Text { text } if !text.is_empty() => Some(acp::ToolCallContent::from(text.clone())),
            _ => None,
        })
        .collect()
}

/// A resumed conversation as the updates a client replays it from: the person's words, the
/// model's thinking and words, and each tool call it made (finished).
pub fn history_updates(history: &[HistoryMessage]) -> Vec<acp::SessionUpdate> {
    let mut updates = Vec::new();
    let chunk = |text: &str| acp::ContentChunk::new(acp::ContentBlock::from(text.to_string()));
    for message in history {
        match message {
            HistoryMessage::User { words, .. } => {
                if !words.text.is_empty() {
                    updates.push(acp::SessionUpdate::UserMessageChunk(chunk(&words.text)));
                }
            }
            HistoryMessage::Assistant { words, tool_uses } => {
                if !words.thinking.is_empty() {
                    updates.push(acp::SessionUpdate::AgentThoughtChunk(chunk(&words.thinking)));
                }
                if !words.text.is_empty() {
                    updates.push(acp::SessionUpdate::AgentMessageChunk(chunk(&words.text)));
                }
                for call in tool_uses {
                    updates.push(acp::SessionUpdate::ToolCall(
                        acp::ToolCall::new(call.id.clone(), call.name.clone())
                            .status(acp::ToolCallStatus::Completed)
                            .raw_input(call.input.clone()),
                    ));
                }
            }
        }
    }
    updates
}

#[cfg(test)]
mod tests {
    use super::*;
    use nerve_protocol::diff::ChangeKind;

    #[test]
    fn a_diff_without_whole_texts_is_made_from_its_hunks() {
        let diff = FileDiff::between(
            "src/a.rs",
            ChangeKind::Update,
            "one\ntwo\nthree\n",
            "one\n2\nthree\n",
        );
        let content = diff_content(Path::new("/p"), &diff, None);
        let acp::ToolCallContent::Diff(d) = content else {
            panic!("not a diff: {content:?}");
        };
        assert_eq!(d.path, PathBuf::from("/p/src/a.rs"));
        assert_eq!(d.old_text.as_deref(), Some("one\ntwo\nthree\n"));
        assert_eq!(d.new_text, "one\n2\nthree\n");
    }

    #[test]
    fn prompt_resources_are_blocks_apart_from_the_words() {
        let blocks = vec![
            acp::ContentBlock::from("Explain "),
            acp::ContentBlock::ResourceLink(acp::ResourceLink::new("a.rs", "file:///p/a.rs")),
            acp::ContentBlock::Resource(acp::EmbeddedResource::new(
                acp::EmbeddedResourceResource::TextResourceContents(acp::TextResourceContents::new(
                    "fn main() {}",
                    "file:///p/b.rs",
                )),
            )),
        ];
        let (text, images) = prompt_input(&blocks);
        assert_eq!(
            text,
            "Explain @/p/a.rs\n\n<attached-file path=\"/p/b.rs\">\nfn main() {}\n</attached-file>"
        );
        assert!(images.is_empty());
    }

    #[test]
    fn every_turn_end_has_its_stop_reason_and_an_error_has_none() {
        assert_eq!(stop_reason(&TurnEnd::Aborted), Some(acp::StopReason::Cancelled));
        assert_eq!(
            stop_reason(&TurnEnd::MaxTurns),
            Some(acp::StopReason::MaxTurnRequests)
        );
        assert_eq!(stop_reason(&TurnEnd::Error), None);
    }
}
