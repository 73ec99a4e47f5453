// What an Agent card says of its sub-agent: what it is doing now, how many calls it made and what
// it cost, read from the sub-agent's reduced events; and which sub-agent a finished card names.
// Nothing here is estimated: the figures are the engine's.
import type { ConversationState, ToolCall } from "./types";
import { isFinished } from "./reducer";

export interface SubagentStatus {
  /** The call it is at (or made last), else the last line it wrote; null before either. */
  line: string | null;
  /** Calls it made so far. */
  calls: number;
  /** Its own cost so far, from its `usage` events; null before the first or when the price is
   *  unknown. */
  costUsd: number | null;
}

/** How far back the status looks for something to say: the latest steps are at the end, and a
 *  card's line must not cost a walk over a long sub-agent's whole transcript. */
const LOOK_BACK = 40;

export function subagentStatus(state: ConversationState): SubagentStatus {
  return { line: currentLine(state), calls: state.tools.size, costUsd: state.cost.session_usd };
}

function currentLine(state: ConversationState): string | null {
  const { items, tools } = state;
  for (let i = items.length - 1; i >= Math.max(0, items.length - LOOK_BACK); i--) {
    const item = items[i]!;
    if (item.kind === "batch") {
      // The latest call still at work, else the latest one.
      const calls = item.tool_ids.map((id) => tools.get(id)).filter((c) => c !== undefined);
      const call = calls.filter((c) => !isFinished(c.status)).at(-1) ?? calls.at(-1);
      if (call) return callLine(call);
    } else if (item.kind === "assistant") {
      const line = lastLine(item.text);
      if (line) return line;
      if (item.thinking) return "Thinking…";
    } else if (item.kind === "notice") {
      return item.text;
    }
    // A user item is the brief it was given (or results): nothing it is doing.
  }
  return null;
}

/** The engine's summary of a call (it starts with the tool's name); while its input streams
 *  there is none yet: the tool and the file it names. */
function callLine(call: ToolCall): string {
  if (call.summary) return call.summary;
  const path = call.stream?.path;
  return path ? `${call.display_name} ${path}` : call.display_name;
}

function lastLine(text: string): string | null {
  const lines = text.split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (line) return line;
  }
  return null;
}

