// Words for what the engine says about changed files and rewinds. Nothing here computes a diff or
// decides anything: the engine's change sets, plans and reports are only put into sentences.
import type { FileChange } from "../bindings/FileChange";
import type { RefusalReason } from "../bindings/RefusalReason";
import type { RewindReport } from "../bindings/RewindReport";

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
