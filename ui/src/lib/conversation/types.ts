// UI-side view state built from engine events. Engine types come from ../../bindings (generated);
// only shapes the engine does not define (how the UI groups and remembers things) live here.
import type { PermissionMode } from "../../bindings/PermissionMode";
import type { PermissionRequest } from "../../bindings/PermissionRequest";
import type { PromptInfo } from "../../bindings/PromptInfo";
import type { ToolKind } from "../../bindings/ToolKind";
import type { Progress } from "../../bindings/Progress";
import type { AttachmentView } from "../../bindings/AttachmentView";
import type { MessageImage } from "../../bindings/MessageImage";
import type { ResultBlock } from "../../bindings/ResultBlock";
import type { TodoItem } from "../../bindings/TodoItem";
import type { SandboxState } from "../../bindings/SandboxState";
import type { SandboxRefusal } from "../../bindings/SandboxRefusal";
import type { Map as PersistentMap } from "immutable";

/** How far a search (Grep, Glob) has got: the engine's `search` progress report. */
export type SearchProgress = Extract<Progress, { kind: "search" }>;

/** `streaming`: the model is still writing the call's input (it has not been queued yet). */
export type ToolStatus = "streaming" | "queued" | "executing" | "completed" | "error" | "denied" | "cancelled";

/** A call's input as the model writes it, from the engine's `tool_input_delta` reports. */
export interface StreamingInput {
  /** The file it names so far (Write, Edit). */
  path: string | null;
  /** What arrived so far: a Write's content, an Edit's new text, a Bash command. */
  text: string;
  /** Line breaks in `text`, counted as it arrives (a big Write is not rescanned each frame). */
  newlines: number;
  /** The input's size so far in bytes, as the engine counts it. */
  bytes: number;
}

/** A sub-agent's own conversation, reduced from its events (an Agent call's `subagent` progress)
 *  by the same reducer as the session's. */
export interface SubagentState {
  agent_id: string;
  state: ConversationState;
}

export interface ToolCall {
  tool_use_id: string;
  tool_name: string;
  /** What kind of work the tool does, as the engine says: the card and icon follow it. */
  tool_kind: ToolKind;
  /** The tool's name as users read it, as the engine says. */
  display_name: string;
  summary: string;
  batch_id: number;
  concurrent: boolean;
  /** The engine says the call may destroy data. */
  destructive: boolean;
  /** Whether the call runs in the sandbox (Bash), as the engine decided; null for other tools. */
  sandbox: SandboxState | null;
  status: ToolStatus;
  /** Wall-clock ms when tool_started arrived (drives the live timer). */
  started_at: number | null;
  /** Final duration from the engine. */
  elapsed_ms: number | null;
  /** Last lines of streamed output (Bash), already trimmed to the tail. */
  output_tail: string[];
  /** Latest status line from a Progress::Status report. */
  status_line: string | null;
  /** Latest counts of a search (Grep, Glob). */
  search: SearchProgress | null;
  /** What the sandbox refused the command that a setting would allow (Bash), as the engine
   *  reported it; the card offers to allow each for the project. */
  sandbox_refusals: SandboxRefusal[];
  content: ResultBlock[] | null;
  is_error: boolean;
  /** For an error the engine wrote (a denial, a validation failure, an interruption), the message
   *  as the user reads it; null for results the tool wrote, and for calls rebuilt from history. */
  error: string | null;
  denied: boolean;
  display: unknown;
  persisted_path: string | null;
  /** The persisted output's size in bytes, as the engine reported it. */
  persisted_bytes: number | null;
  /** Rebuilt from a resumed session's history (no live events were seen). */
  from_history: boolean;
  /** Files the call changed, as the engine's checkpoints recorded them (absolute paths). */
  changed_files: string[];
  /** While the input streams (status `streaming`): what arrived so far; null otherwise. */
  stream: StreamingInput | null;
  /** An Agent call's sub-agent as its live events described it; null before any (or from history). */
  subagent: SubagentState | null;
}

/** An image sent with a prompt, as the engine reads it from the message. */
export type PromptImage = MessageImage;

export type Item =
  /** `turn` is the engine's number of the prompt (what a rewind names); null for user text that
   *  is no prompt (a compaction summary, Stop hook feedback) or a prompt the engine did not number.
   *  `images` are those the prompt carried, in order; `attachments` what else it carried (a folder,
   *  a page, another session, a terminal's selection), by kind and label. */
  | { kind: "user"; key: string; text: string; turn: number | null; images: PromptImage[]; attachments: AttachmentView[] }
  | { kind: "assistant"; key: string; text: string; thinking: string; streaming: boolean }
  | { kind: "batch"; key: string; batch_id: number; concurrent: boolean; tool_ids: string[] }
  /** `action` offers a next step with the notice (a button); withdrawn once it is moot. */
  | { kind: "notice"; key: string; level: "info" | "retry" | "error"; text: string; action?: NoticeAction };

/** What a notice may offer: "continue" sends the prompt "continue" after a turn stopped at the
 *  limit of model calls for one prompt; "review-mcp" opens Settings at the MCP servers that wait
 *  for approval. */
export type NoticeAction = "continue" | "review-mcp";

export interface UsageTotals {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

/** How full the model's context window is, as the engine last reported it. */
export interface ContextMeter {
  /** The latest response's whole input (cached or not) and output. */
  tokens: number;
  /** The model's context window (0 when not known). */
  window: number;
  /** A compaction ran since these figures: the next response's usage brings the new ones. */
  compacted: boolean;
}

/** The engine's cost totals; the UI only subtracts them. */
export interface CostState {
  /** The session's cost so far in USD; null when the model's price is unknown (or nothing was
   *  answered yet: the engine has no total before the first response). */
  session_usd: number | null;
  /** A response has been counted (live, or before a resume): a null total then means the price
   *  is unknown. */
  answered: boolean;
  /** The session's cost when the latest turn began in this view; null when none began here or
   *  the cost was unknown then. */
  turn_start_usd: number | null;
}

/** The engine's totals of the session's prompt-cache reads (kept across resumes). */
export interface CacheState {
  /** Tokens read from the cache so far. */
  read_tokens: number;
  /** What those reads saved in USD against the same tokens uncached; null when the model's price
   *  is unknown. */
  saved_usd: number | null;
}

/**
 * The session's tool calls by id. A persistent map (a hash trie): an update makes a new map that
 * shares all but a few small nodes with the old one. With a plain object, each frame of a turn's
 * events copied every call of the session (1,500 at 300 turns), which made a turn's allocations
 * and garbage grow with the session.
 */
export type ToolCalls = PersistentMap<string, ToolCall>;

export interface ConversationState {
  items: Item[];
  tools: ToolCalls;
  /** Permission requests waiting for the user, oldest first. */
  permissions: PermissionRequest[];
  mode: PermissionMode;
  todos: TodoItem[];
  /** Token counts of the responses seen in this view (null before the first). */
  usage: UsageTotals | null;
  context: ContextMeter;
  cost: CostState;
  cache: CacheState;
  running: boolean;
  last_end: string | null;
  /** The session's prompts, oldest first: as the engine listed them (a resumed session, after a
   *  compaction or a rewind), then the ones started live, each with how its turn ended once it
   *  did (the prompt navigator lists them). */
  prompts: PromptInfo[];
  /** The latest prompt's number (from `turn_started`, or the last of a session's prompts). */
  turn: number | null;
  /** A `turn_started` whose prompt message has not arrived yet: the next prompt gets this number. */
  unstamped_turn: number | null;
  /** The prompt whose turn runs, from its `turn_started` to its `turn_ended` (which is recorded
   *  on it); null between turns. */
  open_turn: number | null;
  /** Counts up whenever the files may have changed (a call changed some, a turn ended), so views of
   *  the session's changes know to ask the engine again. */
  changes_seq: number;
  /** Monotonic counter for item keys, so keys never depend on timing. */
  seq: number;
}

export const OUTPUT_TAIL_LINES = 20;
