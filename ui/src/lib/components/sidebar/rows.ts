// What the sidebar shows, as pure functions (unit-tested): which projects, each project's rows
// (the engine's listing with the live sessions merged in) and the quiet words of a row.
import type { DeletedSession } from "../../../bindings/DeletedSession";
import type { TranscriptSummary } from "../../../bindings/TranscriptSummary";
import type { WorktreeStatus } from "../../../bindings/WorktreeStatus";
import { formatBytes } from "../outputs/format";

/** Projects listed at most (the live sessions' projects always are). */
export const MAX_PROJECTS = 8;
/** Sessions a project shows until the user asks for all. */
export const SESSIONS_SHOWN = 20;

/** The live sessions' projects first, then the recent ones; each once. Recent ones fill up to
 *  `max` projects; a live session's project is never left out. */
export function shownProjects(live: string[], recent: string[], max = MAX_PROJECTS): string[] {
  const out: string[] = [];
  for (const path of live) if (!out.includes(path)) out.push(path);
  for (const path of recent) {
    if (out.length >= max) break;
    if (!out.includes(path)) out.push(path);
  }
  return out;
}

/** One row: a session of the project, live or not. */
export interface SessionRow {
  id: string;
  /** The engine's title; empty for a session with no prompt yet. */
  title: string;
  named: boolean;
  modifiedMs: number;
  costUsd: number | null;
  /** The prompt a search matched (when the title did not). */
  matchedPrompt: string | null;
  live: boolean;
  /** The session it was forked from: its id, and its title when the listing holds it. */
  forkedFrom: { id: string; title: string | null } | null;
}

/** What the merge needs of a live session. */
export interface LiveRow {
  id: string;
  startedMs: number;
  /** The session's cost as the running store knows it (fresher than the listing). */
  costUsd: number | null;
  /** Its first prompt as typed here: the title until the engine lists one. */
  firstPrompt: string;
}

/**
 * The rows of one project, newest first: the engine's listing, with each live session marked (and
 * its cost as the store knows it), and the live sessions the engine does not list yet (just
 * started, nothing written) first, titled by their first prompt until the engine titles them.
 * While searching, only what the search found is listed.
 */
export function mergeRows(listed: TranscriptSummary[], live: LiveRow[], searching: boolean): SessionRow[] {
  const byId = new Map(live.map((l) => [l.id, l]));
  const titles = new Map(listed.map((s) => [s.session_id, s.title || (byId.get(s.session_id)?.firstPrompt ?? "")]));
  const rows: SessionRow[] = listed.map((s) => {
    const l = byId.get(s.session_id);
    const parent = s.forked_from;
    return {
      id: s.session_id,
      title: s.title || (l?.firstPrompt ?? ""),
      named: s.named,
      modifiedMs: s.modified_ms,
      costUsd: l?.costUsd ?? s.cost_usd,
      matchedPrompt: s.matched_prompt,
      live: l !== undefined,
      forkedFrom: parent === null ? null : { id: parent, title: titles.get(parent) ?? null },
    };
  });
  if (searching) return rows;
  const listedIds = new Set(listed.map((s) => s.session_id));
  const fresh = live
    .filter((l) => !listedIds.has(l.id))
    .sort((a, b) => b.startedMs - a.startedMs)
    .map((l) => ({ id: l.id, title: l.firstPrompt, named: false, modifiedMs: l.startedMs, costUsd: l.costUsd, matchedPrompt: null, live: true, forkedFrom: null }));
  return [...fresh, ...rows];
}

/** The ids of the live sessions in the order a project's rows show them (the keys that switch
 *  sessions follow it). While searching, the live ones the search did not find come first. */
export function liveOrder(listed: TranscriptSummary[], live: LiveRow[]): string[] {
  return mergeRows(listed, live, false).flatMap((r) => (r.live ? [r.id] : []));
}

/** A row's title: the session's, or "New session" before it has one. */
export const rowTitle = (title: string) => title.trim() || "New session";

/** What a forked session's row says of where it came from: "forked from “Fix the parser”", or
 *  only "forked" when the session it came from is not listed (deleted, or not found by a search). */
export function forkedText(from: { title: string | null }): string {
  return from.title === null ? "forked" : `forked from “${rowTitle(from.title)}”`;
}

/** A live session's first prompt (not a built-in command the UI ran), shortened: its title until
 *  the engine lists one. */
export const firstPromptOf = (history: string[]) => (history.find((h) => !h.startsWith("/")) ?? "").replace(/\s+/g, " ").slice(0, 120);

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "just now", "5 min ago", "3 h ago", "yesterday", "4 days ago", then the date. */
export function relativeTime(ms: number, now: number): string {
  const age = now - ms;
  if (age < MINUTE) return "just now";
  if (age < HOUR) return `${Math.floor(age / MINUTE)} min ago`;
  if (age < DAY) return `${Math.floor(age / HOUR)} h ago`;
  if (age < 2 * DAY) return "yesterday";
  if (age < 7 * DAY) return `${Math.floor(age / DAY)} days ago`;
  const date = new Date(ms);
  const sameYear = date.getFullYear() === new Date(now).getFullYear();
  return date.toLocaleDateString(undefined, sameYear ? { month: "short", day: "numeric" } : { year: "numeric", month: "short", day: "numeric" });
}

/** A session's cost in a row: "$0.12"; "<$0.01" for a little; nothing when unknown. */
export function rowCost(usd: number | null): string | null {
  if (usd === null) return null;
  if (usd > 0 && usd < 0.005) return "<$0.01";
  return `$${usd.toFixed(2)}`;
}

/** "Deleted “Fix the parser”: 1.2 MB freed, 3 outputs". */
export function deletedNote(title: string, deleted: DeletedSession): string {
  const outputs = deleted.outputs === 1 ? "1 output" : `${deleted.outputs} outputs`;
  const kept = deleted.kept_branch ? `; its work stays on branch ${deleted.kept_branch}` : "";
  return `Deleted “${rowTitle(title)}”: ${formatBytes(deleted.bytes)} freed, ${outputs}${kept}`;
}

/** What a session's branch chip says on hover: where it stands against its base. */
export function worktreeTitle(w: WorktreeStatus): string {
  const base = w.info.base_branch ?? w.info.base_commit.slice(0, 8);
  if (w.missing) return `Branch ${w.info.branch}: its worktree folder is gone`;
  const parts = [`${w.ahead} commit${w.ahead === 1 ? "" : "s"} ahead of ${base}`];
  if (w.behind > 0) parts.push(`${w.behind} behind`);
  if (w.uncommitted > 0) parts.push(`${w.uncommitted} uncommitted change${w.uncommitted === 1 ? "" : "s"}`);
  return `Branch ${w.info.branch}: ${parts.join(", ")}`;
}
