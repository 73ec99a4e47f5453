// What the prompt navigator shows of a session's prompts, as pure functions: each prompt's first
// line, how its turn ended in a word, how long it took. The outcome is the engine's (PromptInfo's
// `outcome`, or a live turn's `turn_ended` reason); this only names it.
import type { PromptInfo } from "../bindings/PromptInfo";
import type { TurnEnd } from "../bindings/TurnEnd";
import type { Item } from "./conversation/types";
import { formatDuration } from "./tasks";

/** The badge's word, and the colour it takes. */
export interface OutcomeBadge {
  label: "done" | "stopped" | "failed" | "hit the limit" | "running" | "—";
  tone: "ok" | "warn" | "bad" | "accent" | "muted";
  /** What the badge says on hover. */
  title: string;
}

const ENDS: Record<TurnEnd, OutcomeBadge> = {
  end_turn: { label: "done", tone: "ok", title: "The agent finished" },
  aborted: { label: "stopped", tone: "muted", title: "Stopped by you" },
  interrupted: { label: "stopped", tone: "muted", title: "Interrupted to send another prompt" },
  stopped_by_hook: { label: "stopped", tone: "muted", title: "A hook ended the turn" },
  max_tokens: { label: "hit the limit", tone: "warn", title: "The answer reached its length limit" },
  max_turns: { label: "hit the limit", tone: "warn", title: "Stopped at the limit of model calls for one prompt" },
  refusal: { label: "failed", tone: "bad", title: "The model declined to go on" },
  error: { label: "failed", tone: "bad", title: "The turn failed with an error" },
};

/** How a prompt's turn ended, in a word: its outcome, else "running" while it is the turn that
 *  runs, else "—" (a transcript from before turn ends were recorded). */
export function outcomeBadge(outcome: TurnEnd | null, running: boolean): OutcomeBadge {
  if (outcome !== null) return ENDS[outcome];
  if (running) return { label: "running", tone: "accent", title: "The turn is running" };
  return { label: "—", tone: "muted", title: "Not recorded" };
}

/** At most this many characters of a prompt's first line (the row cuts it further, to its width). */
const FIRST_LINE_CHARS = 160;

/** A prompt's first line that says something, shortened. */
export function firstLine(text: string): string {
  const line = text.split("\n").find((l) => l.trim()) ?? "";
  const trimmed = line.trim();
  return trimmed.length > FIRST_LINE_CHARS ? `${trimmed.slice(0, FIRST_LINE_CHARS - 1)}…` : trimmed;
}

/** One row of the navigator. */
export interface NavPrompt {
  turn: number;
  firstLine: string;
  timeMs: number;
  outcome: TurnEnd | null;
  badge: OutcomeBadge;
  /** How long its turn took, once the end is known. */
  duration: string | null;
  /** The prompt is in the conversation shown (a compacted one is not: nowhere to go). */
  reachable: boolean;
}

/** The navigator's rows: the session's prompts in order. `running`: a turn runs now (its prompt,
 *  the latest, has no outcome yet). */
export function navPrompts(prompts: PromptInfo[], items: Item[], running: boolean): NavPrompt[] {
  const shown = new Set(items.flatMap((it) => (it.kind === "user" && it.turn !== null ? [it.turn] : [])));
  const latest = prompts.at(-1)?.turn;
  return prompts.map((p) => ({
    turn: p.turn,
    firstLine: firstLine(p.text),
    timeMs: p.time_ms,
    outcome: p.outcome,
    badge: outcomeBadge(p.outcome, running && p.turn === latest),
    duration: p.ended_ms === null ? null : formatDuration(Math.max(0, p.ended_ms - p.time_ms)),
    reachable: shown.has(p.turn),
  }));
}
