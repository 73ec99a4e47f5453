//! Reading what the user attached to a prompt, each into a block of its own for the model
//! ([`Attachment`]). The user's act of attaching is consent to read it, but not past the rules:
//! a folder outside the project's folders is refused, files a Read deny rule covers are left out
//! of a listing, and a page a `WebFetch(domain:…)` deny rule covers is not fetched.

use std::path::{Path, PathBuf};
use std::time::Duration;

use nerve_protocol::prompt::{AttachmentKind, PromptAttachment};

use crate::model::context::Attachment;
use crate::model::types::ContentBlock;
use crate::permissions::{Access, PermissionContext, RuleBehavior};
use crate::project::Project;
use crate::session::SessionError;

/// Most entries a folder's listing names.
const MAX_LISTED: usize = 400;
/// Most entries a listing looks at: past them, the rest is not counted (the root of a repository of
/// tens of thousands of files is listed in the time a few thousand take).
const MAX_VISITED: usize = 5_000;
/// How deep a listing goes below the folder.
const LISTING_DEPTH: usize = 4;
/// Most characters of a page, a session or a selection the model gets.
const MAX_TEXT: usize = 40_000;

/// Every attachment read, in order, or the first that cannot be.
pub async fn read_all(
    project: &Project,
    permissions: &PermissionContext,
    attachments: &[PromptAttachment],
) -> Result<Vec<ContentBlock>, SessionError> {
    let mut blocks = Vec::with_capacity(attachments.len());
    for attachment in attachments {
        let read = match attachment {
            PromptAttachment::Folder { path } => folder(project.dir(), permissions, path),
            PromptAttachment::Url { url } => page(permissions, url).await,
            PromptAttachment::Session { session_id } => session(project, session_id),
            PromptAttachment::TerminalSelection { text } => Ok(selection(text)),
        };
        blocks.push(read.map_err(SessionError::Attachment)?.block());
    }
    Ok(blocks)
}

/// A folder's listing: the files and folders below it that `.gitignore` does not hide, a few
/// levels deep, relative to the project, folders marked with `/`.
fn folder(project_dir: &Path, permissions: &PermissionContext, path: &str) -> Result<Attachment, String> {
    let given = Path::new(path.trim());
    let absolute = if given.is_absolute() {
        given.to_path_buf()
    } else {
        project_dir.join(given)
    };
    let dir = absolute
        .canonicalize()
        .map_err(|e| format!("The folder {path} cannot be attached: {e}"))?;
    if !dir.is_dir() {
        return Err(format!(
            "{path} is not a folder: attach a file by naming it with @."
        ));
    }
    if !permissions.may_read_freely(&dir) {
        return Err(format!(
            "The folder {path} is outside the project's folders; only folders inside them can be attached."
        ));
    }
    let rules = permissions.rules.snapshot();
    let denied = |p: &Path| {
        rules
            .find_path_rule(RuleBehavior::Deny, Access::Read, p, &permissions.home)
            .is_some()
    };
    if denied(&dir) {
        return Err(format!("A Read deny rule covers {path}: it cannot be attached."));
    }
    let shown_root = dir.strip_prefix(project_dir).unwrap_or(&dir);
    let mut entries: Vec<(PathBuf, bool)> = Vec::new();
    let mut more = 0usize;
    let mut left_out = 0usize;
    let walk = ignore::WalkBuilder::new(&dir)
        .max_depth(Some(LISTING_DEPTH))
        .hidden(false)
        .filter_entry(|e| e.file_name() != ".git")
        .sort_by_file_path(|a, b| a.cmp(b))
        .build();
    let mut uncounted = false;
    for (visited, entry) in walk.flatten().skip(1).enumerate() {
        if visited >= MAX_VISITED {
            uncounted = true;
            break;
        }
        if denied(entry.path()) {
            left_out += 1;
            continue;
        }
        if entries.len() >= MAX_LISTED {
            more += 1;
            continue;
        }
        let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
        let relative = entry
            .path()
            .strip_prefix(&dir)
            .unwrap_or(entry.path())
            .to_path_buf();
        entries.push((relative, is_dir));
    }
    let mut body = format!("{}/\n", display(shown_root));
    for (relative, is_dir) in &entries {
        let depth = relative.components().count();
        let name = relative
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        body.push_str(&"  ".repeat(depth));
        body.push_str(&name);
        if *is_dir {
            body.push('/');
        }
        body.push('\n');
    }
    if entries.is_empty() {
        body.push_str("  (empty)\n");
    }
    if uncounted {
        body.push_str(&format!(
            "(more entries not listed: the folder holds over {MAX_VISITED}; attach a subfolder, or use Glob)\n"
        ));
    } else if more > 0 {
        body.push_str(&format!("({more} more entries not listed)\n"));
    }
    if left_out > 0 {
        body.push_str(&format!(
            "({left_out} entries left out: Read deny rules cover them)\n"
        ));
    }
    Ok(Attachment {
        kind: AttachmentKind::Folder,
        label: format!("{}/", display(shown_root)),
        body: body.trim_end().to_string(),
    })
}

/// A path as the listing writes it (`.` for the project itself).
fn display(path: &Path) -> String {
    let text = path.display().to_string();
    if text.is_empty() { ".".into() } else { text }
}

/// A web page as text, fetched as WebFetch fetches it (the same limits and conversion), unless a
/// `WebFetch(domain:…)` deny rule covers its site.
async fn page(permissions: &PermissionContext, raw: &str) -> Result<Attachment, String> {
    use crate::tools::web_fetch::{content, fetch, target};
    let url = target::request_url(raw).map_err(|e| format!("The address {raw} cannot be attached: {e}"))?;
    let rules = permissions.rules.snapshot();
    if rules.denies_domain(url.as_str()) {
        return Err(format!(
            "A WebFetch deny rule covers {url}: it cannot be attached."
        ));
    }
    let limits = fetch::FetchLimits {
        connect_timeout: Duration::from_secs(10),
        total_timeout: Duration::from_secs(30),
        max_bytes: 10 * 1024 * 1024,
        max_redirects: 10,
    };
    let client = fetch::build_client(limits.connect_timeout).map_err(|e| e.to_string())?;
    let fetched = fetch::fetch(&client, url.clone(), &limits)
        .await
        .map_err(|e| format!("{url} could not be fetched: {e}"))?;
    let page = match fetched {
        fetch::Fetched::Page(page) => page,
        fetch::Fetched::CrossSiteRedirect { to, .. } => {
            return Err(format!(
                "{url} redirects to another site ({to}); attach that address instead."
            ));
        }
    };
    if !(200..300).contains(&page.status) {
        return Err(format!("{url} answered {}", page.status));
    }
    let mut text = content::to_text(page.kind, &page.body).map_err(|e| format!("{url}: {e}"))?;
    let cut = content::truncate_at_boundary(&mut text, MAX_TEXT);
    if cut || page.truncated {
        text.push_str("\n(The page is longer; this is its beginning.)");
    }
    Ok(Attachment {
        kind: AttachmentKind::Url,
        label: page.final_url.to_string(),
        body: format!("{}\n\n{text}", page.final_url),
    })
}

/// Another session of the project: its conversation as Markdown, its beginning and end when long.
fn session(project: &Project, session_id: &str) -> Result<Attachment, String> {
    let markdown = project
        .markdown(session_id)
        .map_err(|e| format!("The session {session_id} cannot be attached: {e}"))?;
    let title = project
        .sessions("")
        .ok()
        .and_then(|all| all.into_iter().find(|s| s.session_id == session_id))
        .map_or_else(|| session_id.to_string(), |s| s.title);
    Ok(Attachment {
        kind: AttachmentKind::Session,
        label: title,
        body: head_and_tail(&markdown, MAX_TEXT),
    })
}

/// Text selected in the terminal, cut to its beginning and end when long.
fn selection(text: &str) -> Attachment {
    let first_line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or_default();
    Attachment {
        kind: AttachmentKind::TerminalSelection,
        label: first_line.chars().take(60).collect(),
        body: head_and_tail(text, MAX_TEXT),
    }
}

/// `text`, or its first and last halves of `max` characters with a note between.
fn head_and_tail(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_string();
    }
    let half = max / 2;
    let head: String = text.chars().take(half).collect();
    let tail: String = text.chars().skip(count - half).collect();
    format!(
        "{head}\n\n[… {} characters left out …]\n\n{tail}",
        count - 2 * half
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_text_keeps_its_beginning_and_end() {
        let text = "a".repeat(10) + &"b".repeat(10);
        assert_eq!(
            head_and_tail(&text, 8),
            "aaaa\n\n[… 12 characters left out …]\n\nbbbb"
        );
        assert_eq!(head_and_tail("short", 8), "short");
    }
}
