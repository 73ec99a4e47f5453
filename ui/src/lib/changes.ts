// Words for what the engine says about changed files and rewinds. Nothing here computes a diff or
// decides anything: the engine's change sets, plans and reports are only put into sentences.
import type { CodeRewindPlan } from "../bindings/CodeRewindPlan";
import type { FileChange } from "../bindings/FileChange";
import type { FileStatus } from "../bindings/FileStatus";
import type { RefusalReason } from "../bindings/RefusalReason";
import type { RewindReport } from "../bindings/RewindReport";
import type { RewindUndoReport } from "../bindings/RewindUndoReport";

/** A path inside the project folder relative to it; any other path as it is. */
export function relativePath(path: string, projectPath: string): string {
  const root = projectPath.replace(/[\\/]+$/, "");
  if (!root) return path;
  for (const sep of ["/", "\\"]) {
    if (path.startsWith(root + sep)) return path.slice(root.length + 1);
  }
  return path;
}

/** The engine's line counts of several files, added up (binary files count none). */
export function changeTotals(files: FileChange[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const f of files) {
    added += f.added;
    removed += f.removed;
  }
  return { added, removed };
}

export const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** Why a text file the engine lists has no hunks, or null when an empty diff says enough (a
 *  created or deleted empty file). */
export function noHunksText(status: FileStatus): string | null {
  switch (status) {
    case "modified":
      return "No change to its text: only its mode or type changed.";
    case "renamed":
      return "Renamed; the content is the same.";
    case "created":
    case "deleted":
      return null;
  }
}

/** The question asked before a file of a git scope is put back to the last commit: what is lost.
 *  A file created since the last commit is deleted; against the base, "created" may mean a commit
 *  of the branch added it, which the last commit then still holds. */
export function gitRevertQuestion(change: FileChange, scope: "git_uncommitted" | "git_base", projectPath: string): string {
  const shown = relativePath(change.path, projectPath);
  switch (change.status) {
    case "created":
      return scope === "git_uncommitted"
        ? `Delete ${shown}? It is new since the last commit: reverting deletes it.`
        : `Revert ${shown} to the last commit? Its uncommitted changes are lost; if the last commit does not have it, it is deleted.`;
    case "renamed": {
      if (!change.renamed_from) return `Revert ${shown} to the last commit? Its uncommitted changes are lost.`;
      const from = relativePath(change.renamed_from, projectPath);
      return `Revert ${from} → ${shown} to the last commit? Its uncommitted changes are lost: ${from} comes back.`;
    }
    case "modified":
    case "deleted":
      return `Revert ${shown} to the last commit? Its uncommitted changes are lost.`;
  }
}

/** What undoing a rewind brought back: prompts of the conversation, files (and those left as
 *  they were because they changed since the rewind). */
export function rewindUndoSummary(report: RewindUndoReport): string {
  const parts: string[] = [];
  if (report.prompts_back !== null) parts.push(`${plural(report.prompts_back, "prompt", "prompts")} back in the conversation`);
  if (report.code) {
    parts.push(`${plural(report.code.restored.length, "file", "files")} brought back`);
    if (report.code.refused.length) parts.push(`${plural(report.code.refused.length, "file", "files")} changed since it, left as it is`);
  }
  return parts.length ? `Undid the last rewind: ${parts.join("; ")}.` : "Undid the last rewind.";
}

/** Why a file was left as it is, for the user. */
export function refusalText(reason: RefusalReason): string {
  switch (reason.kind) {
    case "changed_on_disk":
      return "changed on disk since the agent's change, and not confirmed";
    case "changed_since_plan":
      return "changed after the preview was made; look again and retry";
    case "failed":
      return reason.message;
  }
}

/** One line saying what a rewind did: what was restored, what was left alone and why. */
export function rewindSummary(report: RewindReport, projectPath: string): string {
  const parts: string[] = [];
  if (report.conversation) {
    parts.push(`conversation cut back (${plural(report.conversation.prompts_removed, "prompt", "prompts")} removed)`);
  }
  if (report.code) {
    const code = report.code;
    parts.push(`restored ${plural(code.restored.length, "file", "files")}`);
    if (code.refused.length) {
      const why = code.refused.map((r) => `${relativePath(r.path, projectPath)} (${refusalText(r.reason)})`).join("; ");
      parts.push(`refused ${plural(code.refused.length, "file", "files")}: ${why}`);
    }
    if (code.unseen.length) {
      parts.push(`${plural(code.unseen.length, "call's changes", "calls' changes")} could not be restored`);
    }
  }
  return `Rewound to before prompt ${report.to_turn}: ${parts.join("; ")}.`;
}

/** The ticked files a code rewind may overwrite: only those the plan says changed on disk since
 *  the agent's change (a tick left from another plan is dropped). */
export function confirmedOnDisk(plan: CodeRewindPlan | null, ticked: string[]): string[] {
  const onDisk = new Set(plan?.files.filter((f) => f.changed_on_disk).map((f) => f.path) ?? []);
  return ticked.filter((p) => onDisk.has(p));
}
