// Pure helpers behind the plan review (PlanApprovalPanel): the plan's source lines, the line
// comments, the review Keep planning sends, the notes an approval adds to the plan, and the first
// prompt of a session that continues the plan with a fresh context.
import type { PermissionMode } from "../bindings/PermissionMode";

/** A comment on one source line of the plan (1-based, as the line-numbered view shows it). */
export interface LineComment {
  line: number;
  text: string;
}

/** How the approved work goes on (the mode) and, with a fresh context, its first prompt. */
export interface PlanContinuation {
  mode: PermissionMode;
  prompt: string;
}

/** The modes the work may continue in after an approval, in the order offered. Plan mode is left
 *  out (approving leaves it), and so are the modes that never ask (bypass, don't ask): those stay
 *  a deliberate choice in the header's mode switcher. */
export const CONTINUE_MODES: readonly { value: PermissionMode; label: string; help: string }[] = [
  { value: "default", label: "Ask before edits", help: "Edits and commands ask first; reads and allowed calls run." },
  { value: "acceptEdits", label: "Accept edits", help: "File edits in the project run without asking; commands still ask." },
  { value: "auto", label: "Auto", help: "A model classifier approves routine calls and asks about risky ones." },
];

/** Claude Code suggests accepting edits once a plan is approved. */
export const DEFAULT_CONTINUE_MODE: PermissionMode = "acceptEdits";

/** The answer to the request when the plan continues in a new session: the old turn is stopped
 *  right after, but the model reads why its call did not go through. */
export const CONTINUED_ELSEWHERE = "The user approved the plan and continues it in a new session with a fresh context.";

/** The plan's source lines as the line-numbered view shows them; trailing blank lines are left
 *  out (they have nothing to comment on, and the numbers of the others do not change). */
export function planLines(plan: string): string[] {
  const lines = plan.split(/\r?\n/);
  while (lines.length > 1 && lines.at(-1)!.trim() === "") lines.pop();
  return lines;
}

/** `comments` with the one on `line` set to `text` (removed when `text` is blank), by line. */
export function setComment(comments: readonly LineComment[], line: number, text: string): LineComment[] {
  const others = comments.filter((c) => c.line !== line);
  const kept = text.trim() ? [...others, { line, text: text.trim() }] : others;
  return kept.sort((a, b) => a.line - b.line);
}

/** `Line 3 ("2. Rename the module")`; a blank line is named by its number only. */
function lineLabel(line: number, source: string | undefined): string {
  const text = (source ?? "").trim();
  return text ? `Line ${line} ("${text}")` : `Line ${line}`;
}

/**
 * What Keep planning tells the model: each line comment (by line) quoted with its line number and
 * the line's text, then the general feedback; only the feedback when there are no comments; null
 * when there is nothing at all. A comment's further lines are indented so the list stays a list.
 *
 *     Review of the plan:
 *     - Line 3 ("2. Rename the module"): keep the old name as an alias
 *     Also update the docs
 */
export function reviewMessage(plan: string, comments: readonly LineComment[], feedback: string): string | null {
  const general = feedback.trim();
  const kept = comments.filter((c) => c.text.trim()).sort((a, b) => a.line - b.line);
  if (kept.length === 0) return general || null;
  const lines = planLines(plan);
  const items = kept.map((c) => `- ${lineLabel(c.line, lines[c.line - 1])}: ${c.text.trim().replace(/\r?\n/g, "\n  ")}`);
  return ["Review of the plan:", ...items, ...(general ? [general] : [])].join("\n");
}

/** The plan with the user's notes as a last section (unchanged without notes). */
export function planWithNotes(plan: string, notes: string): string {
  const text = notes.trim();
  return text ? `${plan.trimEnd()}\n\n## Notes from the user\n${text}` : plan;
}

/** The first prompt of the session that carries out the plan with a fresh context. */
export function continuationPrompt(plan: string, notes: string): string {
  return `Implement this plan:\n\n${planWithNotes(plan, notes).trim()}`;
}
