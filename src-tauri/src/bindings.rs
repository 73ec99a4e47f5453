//! The UI's TypeScript types, generated from the Rust types that cross IPC (`ui/src/bindings/`):
//! the engine's are all in `nerve-protocol`; the rest are this shell's own (app settings, state).
//! `bindings_are_current` fails when the committed files differ from what the Rust types give;
//! `NERVE_UPDATE_BINDINGS=1 cargo test -p nerve-desktop bindings` rewrites them.

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]

    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};

    use nerve_protocol::Event;
    use nerve_protocol::{PermissionMode, UserAnswer};
    use ts_rs::{Config, TS};

    use nerve_protocol::checkpoint::{ChangeScope, ChangeSet, CodeRewindPlan, CodeRewindReport};
    use nerve_protocol::rewind::RewindRequest;

    use crate::dto::{
        AppSettings, AppState, PersistedChunk, ProjectInfo, RewindOutcome, SessionInfo, TurnSummary,
    };

    fn export_all(dir: &Path) {
        // serde_json writes every integer as a JSON number, so TypeScript sees `number`.
        let cfg = Config::new().with_out_dir(dir).with_large_int("number");
        Event::export_all(&cfg).unwrap();
        UserAnswer::export_all(&cfg).unwrap();
        PermissionMode::export_all(&cfg).unwrap();
        AppSettings::export_all(&cfg).unwrap();
        crate::terminal::TerminalEvent::export_all(&cfg).unwrap();
        crate::attention::AttentionEvent::export_all(&cfg).unwrap();
        nerve_protocol::prompt::ModelChoice::export_all(&cfg).unwrap();
        nerve_protocol::settings::McpImportReport::export_all(&cfg).unwrap();
        nerve_protocol::settings::McpImportSource::export_all(&cfg).unwrap();
        nerve_protocol::settings::McpServerSpec::export_all(&cfg).unwrap();
        nerve_protocol::settings::HookSpec::export_all(&cfg).unwrap();
        nerve_protocol::settings::HookTestResult::export_all(&cfg).unwrap();
        nerve_protocol::settings::MemoryFileView::export_all(&cfg).unwrap();
        nerve_protocol::tasks::TaskView::export_all(&cfg).unwrap();
        nerve_protocol::tool::CommandDisplay::export_all(&cfg).unwrap();
        nerve_protocol::release::UpdateStatus::export_all(&cfg).unwrap();
        crate::dto::Diagnostics::export_all(&cfg).unwrap();
        nerve_protocol::transcripts::SessionSearchHit::export_all(&cfg).unwrap();
        nerve_protocol::transcripts::SubagentTranscript::export_all(&cfg).unwrap();
        crate::terminal::TerminalInfo::export_all(&cfg).unwrap();
        AppState::export_all(&cfg).unwrap();
        ProjectInfo::export_all(&cfg).unwrap();
        SessionInfo::export_all(&cfg).unwrap();
        TurnSummary::export_all(&cfg).unwrap();
        PersistedChunk::export_all(&cfg).unwrap();
        ChangeScope::export_all(&cfg).unwrap();
        ChangeSet::export_all(&cfg).unwrap();
        CodeRewindPlan::export_all(&cfg).unwrap();
        CodeRewindReport::export_all(&cfg).unwrap();
        RewindRequest::export_all(&cfg).unwrap();
        RewindOutcome::export_all(&cfg).unwrap();
        crate::dto::CompactOutcome::export_all(&cfg).unwrap();
        nerve_protocol::prompt::SlashCommand::export_all(&cfg).unwrap();
        nerve_protocol::definitions::DefinitionsView::export_all(&cfg).unwrap();
        nerve_protocol::settings::ModelProvider::export_all(&cfg).unwrap();
        nerve_protocol::prompt::FileMatch::export_all(&cfg).unwrap();
        crate::dto::ProjectSettingsView::export_all(&cfg).unwrap();
        nerve_protocol::settings::RuleSyntax::export_all(&cfg).unwrap();
        nerve_protocol::settings::PermissionCheck::export_all(&cfg).unwrap();
        nerve_protocol::settings::RuleEdit::export_all(&cfg).unwrap();
        nerve_protocol::prompt::ModelListing::export_all(&cfg).unwrap();
        nerve_protocol::prompt::AttachedImage::export_all(&cfg).unwrap();
        nerve_protocol::prompt::PromptAttachment::export_all(&cfg).unwrap();
        crate::outputs_commands::OutputsView::export_all(&cfg).unwrap();
        crate::outputs_commands::SearchDone::export_all(&cfg).unwrap();
        nerve_protocol::outputs::SearchHit::export_all(&cfg).unwrap();
        nerve_protocol::outputs::Deleted::export_all(&cfg).unwrap();
        nerve_protocol::transcripts::DeletedSession::export_all(&cfg).unwrap();
        crate::session_commands::DemoStarted::export_all(&cfg).unwrap();
        nerve_protocol::transcripts::TranscriptSummary::export_all(&cfg).unwrap();
        nerve_protocol::workspace::WorktreeStatus::export_all(&cfg).unwrap();
        nerve_protocol::workspace::CleanReport::export_all(&cfg).unwrap();
        nerve_protocol::session::RewindUndoOutcome::export_all(&cfg).unwrap();
        nerve_protocol::workspace::Landed::export_all(&cfg).unwrap();
        nerve_protocol::workspace::ConflictFile::export_all(&cfg).unwrap();
        nerve_protocol::workspace::DiscardPreview::export_all(&cfg).unwrap();
        nerve_protocol::workspace::LandOutcome::export_all(&cfg).unwrap();
        nerve_protocol::checkpoint::ReviewComment::export_all(&cfg).unwrap();
    }

    fn files(dir: &Path) -> BTreeMap<PathBuf, String> {
        let mut out = BTreeMap::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(&d) else { continue };
            for entry in rd.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    let rel = path.strip_prefix(dir).unwrap().to_path_buf();
                    out.insert(rel, std::fs::read_to_string(&path).unwrap());
                }
            }
        }
        out
    }

    #[test]
    fn bindings_are_current() {
        let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/src/bindings");
        let fresh = tempfile::tempdir().unwrap();
        export_all(fresh.path());
        let generated = files(fresh.path());
        assert!(generated.contains_key(Path::new("Event.ts")), "{generated:?}");
        if std::env::var_os("NERVE_UPDATE_BINDINGS").is_some() {
            let _ = std::fs::remove_dir_all(&committed);
            for (rel, text) in &generated {
                let path = committed.join(rel);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, text).unwrap();
            }
            return;
        }
        let existing = files(&committed);
        if existing != generated {
            let differ: Vec<_> = generated
                .keys()
                .chain(existing.keys())
                .filter(|k| generated.get(*k) != existing.get(*k))
                .collect();
            panic!(
                "ui/src/bindings is out of date ({differ:?}); run NERVE_UPDATE_BINDINGS=1 cargo test -p nerve-desktop bindings"
            );
        }
    }
}
