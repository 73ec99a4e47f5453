//! The approved-`sed -i` flow: before asking, simulate the edit with `sed --sandbox` (which refuses
//! the `e`, `r` and `w` commands) and show the diff; on approval, write exactly the previewed content,
//! unless a file changed in between.

use std::path::{Path, PathBuf};
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::permissions::protected::is_inside_working_dirs;
use crate::tool::{ApprovalPreview, PermissionPreview, ToolError, ToolOutput, ToolUseContext};
use crate::tools::bash::sed::parse_sed_in_place;
use crate::tools::fs::{ChangeKind, FileDiff};
use nerve_protocol::SedFileChange;

/// The engine-only input field carrying an approved edit.
pub(crate) const SIMULATED_SED_EDIT_FIELD: &str = "_simulatedSedEdit";

/// Files larger than this are not simulated (the preview holds their new content).
const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// How long the simulation may take.
const SIMULATION_TIMEOUT: Duration = Duration::from_secs(10);

/// An edit the user approved: the new content of each file and the hash of the content it replaces.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SimulatedSedEdit {
    /// The command the edit was simulated from.
    pub command: String,
    /// The files, in command order.
    pub files: Vec<SimulatedFile>,
    /// The backup suffix of `-iSUFFIX`: the old content is kept next to each file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backup_suffix: Option<String>,
}

/// One file of a [`SimulatedSedEdit`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SimulatedFile {
    /// Absolute path.
    pub path: PathBuf,
    /// SHA-256 (hex) of the content the preview was computed from.
    pub old_sha256: String,
    /// The content to write.
    pub new_content: String,
}

/// Simulates `command` if it is a previewable `sed -i` on files inside the working directories.
pub(crate) async fn sed_preview(command: &str, ctx: &ToolUseContext) -> Option<ApprovalPreview> {
    let sed = parse_sed_in_place(command)?;
    let mut files = Vec::new();
    let mut shown = Vec::new();
    for file in &sed.files {
        let path = ctx.resolve_path(file);
        if !is_inside_working_dirs(&path, &ctx.permissions.working_dirs) {
            return None;
        }
        let meta = std::fs::metadata(&path).ok()?;
        if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
            return None;
        }
        let old = std::fs::read(&path).ok()?;
        let new = simulate(&sed.flags, &sed.scripts, &path).await?;
        // The file changed while sed read it: no trustworthy preview.
        if std::fs::read(&path).ok()? != old {
            return None;
        }
        let (old_text, new_text) = (String::from_utf8(old).ok()?, String::from_utf8(new).ok()?);
        // The same structured diff as Edit's and Write's previews and the change sets: the
        // front-end shows hunks and never parses diff text.
        let diff = FileDiff::between(&path.to_string_lossy(), ChangeKind::Update, &old_text, &new_text);
        let old_sha256 = sha256_hex(old_text.as_bytes());
        shown.push(SedFileChange {
            path: path.to_string_lossy().into_owned(),
            old_sha256: old_sha256.clone(),
            new_sha256: sha256_hex(new_text.as_bytes()),
            hunks: diff.hunks,
            diff: diff.unified,
        });
        files.push(SimulatedFile {
            path,
            old_sha256,
            new_content: new_text,
        });
    }
    let edit = SimulatedSedEdit {
        command: command.to_string(),
        files,
        backup_suffix: sed.backup_suffix,
    };
    let mut engine_input = serde_json::Map::new();
    engine_input.insert(
        SIMULATED_SED_EDIT_FIELD.to_string(),
        serde_json::to_value(&edit).ok()?,
    );
    Some(ApprovalPreview {
        display: PermissionPreview::SedEdit { files: shown },
        engine_input,
    })
}

/// Runs `sed --sandbox FLAGS -e SCRIPT... -- PATH` (no `-i`) and returns what it prints, which is
/// what `sed -i` would write. The path is passed (not stdin) so `F` prints the real file name.
async fn simulate(flags: &[String], scripts: &[String], path: &Path) -> Option<Vec<u8>> {
    let mut command = tokio::process::Command::new("sed");
    command.arg("--sandbox").args(flags);
    for script in scripts {
        command.arg("-e").arg(script);
    }
    command
        .arg("--")
        .arg(path)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let output = tokio::time::timeout(SIMULATION_TIMEOUT, command.output())
        .await
        .ok()?
        .ok()?;
    output.status.success().then_some(output.stdout)
}

/// Writes an approved edit. Every file is checked first: if any changed since the preview, nothing
/// is written.
pub(crate) fn apply_sed_edit(
    edit: &SimulatedSedEdit,
    command: &str,
    ctx: &ToolUseContext,
) -> Result<ToolOutput, ToolError> {
    if edit.command != command {
        return Err(ToolError::InvalidInput(
            "The approved sed edit was computed for a different command; nothing was written. Run the command again to get a new preview.".into(),
        ));
    }
    for file in &edit.files {
        if !is_inside_working_dirs(&file.path, &ctx.permissions.working_dirs) {
            return Err(ToolError::InvalidInput(format!(
                "{} is outside the allowed working directories; nothing was written.",
                file.path.display()
            )));
        }
        let current = std::fs::read(&file.path).map_err(|e| {
            ToolError::io(
                format!(
                    "could not re-read {} before writing the approved edit",
                    file.path.display()
                ),
                e,
            )
        })?;
        if sha256_hex(&current) != file.old_sha256 {
            return Err(ToolError::Failed(format!(
                "{} changed after the edit was previewed and approved, so nothing was written (the approved diff no longer applies to its current content). Read the file again and re-run the sed command to get a fresh preview.",
                file.path.display()
            )));
        }
    }
    for file in &edit.files {
        if let Some(suffix) = &edit.backup_suffix {
            let mut backup = file.path.clone().into_os_string();
            backup.push(suffix);
            std::fs::copy(&file.path, PathBuf::from(&backup)).map_err(|e| {
                ToolError::io(
                    format!("could not write the backup of {}", file.path.display()),
                    e,
                )
            })?;
        }
        crate::tools::fs::write_atomic(&file.path, file.new_content.as_bytes())
            .map_err(|e| ToolError::io(format!("could not write {}", file.path.display()), e))?;
    }
    let names: Vec<String> = edit.files.iter().map(|f| f.path.display().to_string()).collect();
    Ok(ToolOutput::text(format!(
        "Applied the sed edit the user approved (exactly the previewed content) to: {}",
        names.join(", ")
    )))
}

/// Lower-case hex SHA-256.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    crate::tools::fs::hash_bytes(bytes)
}
