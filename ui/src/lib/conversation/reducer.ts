// Pure reduction of engine events into conversation view state. No clocks, no I/O: the caller passes
// `now`, so the same events always give the same state and the reducer is unit-testable.
import type { AssistantWords } from "../../bindings/AssistantWords";
import type { Event } from "../../bindings/Event";
import type { HistoryMessage } from "../../bindings/HistoryMessage";
import type { PastCall } from "../../bindings/PastCall";
import type { PermissionMode } from "../../bindings/PermissionMode";
import type { PromptInfo } from "../../bindings/PromptInfo";
import type { Progress } from "../../bindings/Progress";
import type { UserWords } from "../../bindings/UserWords";
import { Map as PersistentMap } from "immutable";
import { retryReasonText } from "../retry";
import {
  OUTPUT_TAIL_LINES,
  type ConversationState,
  type CostState,
  type Item,
  type PromptImage,
  type ToolCall,
  type ToolCalls,
  type ToolStatus,
} from "./types";

type BatchItem = Extract<Item, { kind: "batch" }>;

export function initialState(mode: PermissionMode = "default"): ConversationState {
  return {
    items: [],
    tools: PersistentMap(),
    permissions: [],
    mode,
    todos: [],
    usage: null,
    context: { tokens: 0, window: 0, compacted: false },
    cost: { session_usd: null, answered: false, turn_start_usd: null },
    cache: { read_tokens: 0, saved_usd: null },
    running: false,
    last_end: null,
    prompts: [],
    turn: null,
    unstamped_turn: null,
    open_turn: null,
    changes_seq: 0,
    seq: 0,
  };
}

// Copy-on-write. `reduce` never changes the state it is given; but a frame's worth of events
// (a stream of deltas, a Bash call's output lines) would then copy the item list once per event,
// which grows with the session. `reduceAll` lets the arrays it copied itself be written in place
// by the later events of the same batch: it hands back one new state and leaves the old one
// untouched, so the outcome is the same as reducing one by one. (The map of calls is persistent:
// an update copies a few small nodes, never the whole map.)
let owned: WeakSet<object> | null = null;

/** Entries copied for copy-on-write (items), for tests to check that a batch of events or a
 *  resumed history costs a bounded number of copies without timing it. */
export const copyStats = { entries: 0 };

function own<T extends object>(value: T): T {
  owned?.add(value);
  return value;
}

function writableItems(items: Item[]): Item[] {
  if (owned?.has(items)) return items;
  copyStats.entries += items.length;
  return own(items.slice());
}

/** Applies events in order, as many `reduce` calls would, copying the item list at most once for
 *  all of them. */
export function reduceAll(state: ConversationState, events: Iterable<Event>, now: number): ConversationState {
  const outer = owned;
  owned = new WeakSet();
  try {
    for (const event of events) state = reduce(state, event, now);
  } finally {
    owned = outer;
  }
  return state;
}

function withItem(state: ConversationState, make: (key: string) => Item): ConversationState {
  const seq = state.seq + 1;
  const items = writableItems(state.items);
  items.push(make(`i${seq}`));
  return { ...state, seq, items };
}

/** Index of the assistant item currently streaming, if the last item is one. */
function streamingIndex(items: Item[]): number {
  const last = items.length - 1;
  const item = items[last];
  return item && item.kind === "assistant" && item.streaming ? last : -1;
}

function appendStream(state: ConversationState, field: "text" | "thinking", chunk: string) {
  const idx = streamingIndex(state.items);
  if (idx < 0) {
    return withItem(state, (key) => ({
      kind: "assistant",
      key,
      text: field === "text" ? chunk : "",
      thinking: field === "thinking" ? chunk : "",
      streaming: true,
    }));
  }
  const items = writableItems(state.items);
  const cur = items[idx] as Extract<Item, { kind: "assistant" }>;
  items[idx] = { ...cur, [field]: cur[field] + chunk };
  return { ...state, items };
}

/**
 * The final message settles what was streamed. Tool calls start mid-stream, so one message's text
 * may sit in several items around its tool cards; when the streamed pieces add up to the final
 * text they stay where they are, otherwise (lossy deltas) the first takes the whole text.
 */
function finishAssistant(state: ConversationState, words: AssistantWords): ConversationState {
  const { text, thinking } = words;
  const streamed: number[] = [];
  state.items.forEach((it, i) => {
    if (it.kind === "assistant" && it.streaming) streamed.push(i);
  });
  if (streamed.length === 0) {
    if (!text && !thinking) return state;
    return withItem(state, (key) => ({ kind: "assistant", key, text, thinking, streaming: false }));
  }
  const pieces = streamed.map((i) => state.items[i] as Extract<Item, { kind: "assistant" }>);
  const sameText = pieces.map((p) => p.text).join("") === text;
  const sameThinking = pieces.map((p) => p.thinking).join("") === thinking;
  let items = writableItems(state.items);
  if (sameText && sameThinking) {
    for (const i of streamed) {
      items[i] = { ...(items[i] as Extract<Item, { kind: "assistant" }>), streaming: false };
    }
  } else {
    const [first, ...rest] = streamed;
    items[first!] = { ...(items[first!] as Extract<Item, { kind: "assistant" }>), text, thinking, streaming: false };
    if (rest.length) {
      const drop = new Set(rest);
      items = own(items.filter((_, i) => !drop.has(i)));
    }
  }
  // A piece with nothing in it (a tool-use-only stretch) is not worth a row.
  if (items.some(isEmptyAssistant)) items = own(items.filter((it) => !isEmptyAssistant(it)));
  return { ...state, items };
}

function isEmptyAssistant(it: Item): boolean {
  return it.kind === "assistant" && !it.text && !it.thinking;
}

/** Adds a user message's text, images and attachments. A user message shows as a prompt only when
 *  it carries one of them (tool results have their cards). Live, the message right after `turn_started` is that
 *  turn's prompt (the engine numbers the prompt, then sends it): it takes the number. */
function addUser(state: ConversationState, words: UserWords): ConversationState {
  const turn = state.unstamped_turn;
  const next = turn === null ? state : { ...state, unstamped_turn: null, prompts: withPrompt(state.prompts, turn, (p) => ({ ...p, text: words.text })) };
  const { text, images } = words;
  // Older shells (and tests of them) send words without attachments.
  const attachments = words.attachments ?? [];
  if (!text && images.length === 0 && attachments.length === 0) return next;
  return withItem(next, (key) => ({ kind: "user", key, text, turn, images, attachments }));
}

/** The prompts with the one numbered `turn` changed (the same list when there is none). */
function withPrompt(prompts: PromptInfo[], turn: number, change: (p: PromptInfo) => PromptInfo): PromptInfo[] {
  const at = prompts.findIndex((p) => p.turn === turn);
  if (at < 0) return prompts;
  return prompts.map((p, i) => (i === at ? change(p) : p));
}

/** A prompt the engine numbered live (`turn_started`): its text comes with the message after it,
 *  its outcome with the turn's end. The time is when the event arrived here: the engine sends no
 *  other for a live prompt. */
function startPrompt(prompts: PromptInfo[], turn: number, now: number): PromptInfo[] {
  const started: PromptInfo = { turn, text: "", time_ms: now, message_index: null, outcome: null, ended_ms: null };
  return [...prompts.filter((p) => p.turn !== turn), started];
}

function updateTool(
  state: ConversationState,
  id: string,
  change: (t: ToolCall) => ToolCall,
): ConversationState {
  const tool = state.tools.get(id);
  if (!tool) return state; // an event for a call we never saw queued: nothing sensible to show
  return { ...state, tools: state.tools.set(id, change(tool)) };
}

function tailLines(previous: string[], text: string): string[] {
  // The last previous line may be unfinished: glue the new chunk onto it before splitting.
  const joined = (previous.length ? previous.join("\n") : "") + text;
  const lines = joined.split("\n");
  return lines.slice(-OUTPUT_TAIL_LINES);
}

function applyProgress(tool: ToolCall, progress: Progress, now: number): ToolCall {
  switch (progress.kind) {
    case "output":
      return { ...tool, output_tail: tailLines(tool.output_tail, progress.text) };
    case "status":
      return { ...tool, status_line: progress.message };
    case "search":
      return { ...tool, search: progress };
    case "sandbox_refused":
      return { ...tool, sandbox_refusals: [...tool.sandbox_refusals, progress.refusal] };
    case "subagent": {
      // The sub-agent's own loop, reduced like the session's: its card then shows text, calls,
      // progress, todos and usage the way the main line does.
      const before = tool.subagent;
      const inner = before && before.agent_id === progress.agent_id ? before.state : initialState();
      return { ...tool, subagent: { agent_id: progress.agent_id, state: reduce(inner, progress.event, now) } };
    }
    case "data":
      return tool;
  }
}

/** Whether a call has ended (its result, a denial or a cancellation is in). */
export function isFinished(status: ToolStatus): boolean {
  return status !== "streaming" && status !== "queued" && status !== "executing";
}

/** The batch item holding a call, looked for from the end: the calls whose input streams belong
 *  to the message being written, among the last items. */
function batchIndexOf(items: Item[], id: string): number {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.kind === "batch" && item.tool_ids.includes(id)) return i;
  }
  return -1;
}

function countNewlines(text: string): number {
  let n = 0;
  for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) n++;
  return n;
}

/**
 * The model began writing a call: its card shows at once, in a group of its own. The engine has
 * not batched it yet (it does when the call is queued), so the group's id is a placeholder no
 * engine batch has (engine ids are not negative).
 */
function startInput(state: ConversationState, e: Extract<Event, { type: "tool_input_started" }>): ConversationState {
  if (state.tools.has(e.tool_use_id)) return state;
  const batchId = -(state.seq + 1);
  const tool = newToolCall({
    tool_use_id: e.tool_use_id,
    tool_name: e.tool_name,
    tool_kind: e.kind,
    display_name: e.display_name,
    batch_id: batchId,
    status: "streaming",
    stream: { path: null, text: "", newlines: 0, bytes: 0 },
  });
  return withItem({ ...state, tools: state.tools.set(e.tool_use_id, tool) }, (key) => ({
    kind: "batch",
    key,
    batch_id: batchId,
    concurrent: false,
    tool_ids: [e.tool_use_id],
  }));
}

/** More of a call's input: only the call changes (the map shares all but a few nodes), never the
 *  item list, so a long Write streaming costs the same per report however long the session is. */
function streamInput(state: ConversationState, e: Extract<Event, { type: "tool_input_delta" }>): ConversationState {
  const tool = state.tools.get(e.tool_use_id);
  if (!tool || tool.status !== "streaming" || !tool.stream) return state; // queued already: late
  const before = tool.stream;
  const stream = {
    path: e.path ?? before.path,
    text: e.restart ? e.text : before.text + e.text,
    newlines: (e.restart ? 0 : before.newlines) + countNewlines(e.text),
    bytes: Number(e.input_bytes),
  };
  return { ...state, tools: state.tools.set(e.tool_use_id, { ...tool, stream }) };
}

/** The response broke off before the call's input was complete: the call never happened. */
function abandonInput(state: ConversationState, id: string): ConversationState {
  const tool = state.tools.get(id);
  if (!tool || tool.status !== "streaming") return state;
  const tools = state.tools.delete(id);
  const at = batchIndexOf(state.items, id);
  if (at < 0) return { ...state, tools };
  const items = writableItems(state.items);
  const item = items[at] as BatchItem;
  const rest = item.tool_ids.filter((t) => t !== id);
  if (rest.length) items[at] = { ...item, tool_ids: rest };
  else items.splice(at, 1);
  return { ...state, tools, items };
}

/**
 * A streamed call is queued: its card becomes the normal one where it is. It joins the group just
 * before it when that is its engine batch (calls written one after another, batched together),
 * else its own group takes the engine's batch.
 */
function queueStreamed(state: ConversationState, tool: ToolCall, concurrent: boolean): ConversationState {
  const at = batchIndexOf(state.items, tool.tool_use_id);
  if (at < 0) return appendQueued(state, tool, concurrent);
  const tools = state.tools.set(tool.tool_use_id, tool);
  const items = writableItems(state.items);
  const item = items[at] as BatchItem;
  const before = at > 0 ? items[at - 1] : undefined;
  if (item.tool_ids.length === 1 && before?.kind === "batch" && before.batch_id === tool.batch_id) {
    items[at - 1] = { ...before, tool_ids: [...before.tool_ids, tool.tool_use_id] };
    items.splice(at, 1);
  } else {
    items[at] = { ...item, batch_id: tool.batch_id, concurrent };
  }
  return { ...state, tools, items };
}

export function newToolCall(fields: Partial<ToolCall> & Pick<ToolCall, "tool_use_id" | "tool_name">): ToolCall {
  return {
    tool_kind: { kind: "other" },
    display_name: fields.tool_name,
    summary: "",
    batch_id: 0,
    concurrent: false,
    destructive: false,
    sandbox: null,
    status: "queued",
    started_at: null,
    elapsed_ms: null,
    output_tail: [],
    status_line: null,
    search: null,
    sandbox_refusals: [],
    content: null,
    is_error: false,
    error: null,
    denied: false,
    display: null,
    persisted_path: null,
    persisted_bytes: null,
    from_history: false,
    changed_files: [],
    stream: null,
    subagent: null,
    ...fields,
  };
}

function queueTool(state: ConversationState, e: Extract<Event, { type: "tool_queued" }>) {
  const batchId = Number(e.batch_id);
  const tool = newToolCall({
    tool_use_id: e.tool_use_id,
    tool_name: e.tool_name,
    tool_kind: e.kind,
    display_name: e.display_name,
    summary: e.summary,
    batch_id: batchId,
    concurrent: e.concurrent,
    destructive: e.destructive,
    sandbox: e.sandbox ?? null,
  });
  // A call whose input streamed has its card already: it becomes the queued card where it is.
  if (state.tools.get(e.tool_use_id)?.status === "streaming") return queueStreamed(state, tool, e.concurrent);
  return appendQueued(state, tool, e.concurrent);
}

function appendQueued(state: ConversationState, tool: ToolCall, concurrent: boolean): ConversationState {
  const id = tool.tool_use_id;
  const batchId = tool.batch_id;
  const tools = state.tools.set(id, tool);
  // Consecutive calls with the same batch_id form one group; the engine decides, we never guess.
  const last = state.items[state.items.length - 1];
  if (last && last.kind === "batch" && last.batch_id === batchId) {
    const items = writableItems(state.items);
    items[items.length - 1] = { ...last, tool_ids: [...last.tool_ids, id] };
    return { ...state, tools, items };
  }
  return withItem({ ...state, tools }, (key) => ({
    kind: "batch",
    key,
    batch_id: batchId,
    concurrent,
    tool_ids: [id],
  }));
}

export function finalStatus(is_error: boolean, denied: boolean, cancelled = false): ToolStatus {
  if (denied) return "denied";
  if (cancelled) return "cancelled";
  return is_error ? "error" : "completed";
}

function formatDelay(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)}s` : `${ms}ms`;
}

export function reduce(state: ConversationState, event: Event, now: number): ConversationState {
  switch (event.type) {
    case "text_delta":
      return appendStream(state, "text", event.text);
    case "thinking_delta":
      return appendStream(state, "thinking", event.text);
    case "assistant_message":
      return finishAssistant(state, event.message);
    case "user_message":
      return addUser(state, event.message);
    case "tool_input_started":
      return startInput(state, event);
    case "tool_input_delta":
      return streamInput(state, event);
    case "tool_input_abandoned":
      return abandonInput(state, event.tool_use_id);
    case "tool_queued":
      return queueTool(state, event);
    case "tool_started":
      return updateTool(state, event.tool_use_id, (t) => ({ ...t, status: "executing", started_at: now }));
    case "tool_progress":
      return updateTool(state, event.tool_use_id, (t) => applyProgress(t, event.progress, now));
    case "tool_completed": {
      const next = updateTool(state, event.tool_use_id, (t) => ({
        ...t,
        status: finalStatus(event.is_error, event.denied, event.cancelled),
        stream: null,
        content: event.content,
        is_error: event.is_error,
        error: event.error,
        denied: event.denied,
        display: event.display ?? null,
        persisted_path: event.persisted_path ?? null,
        persisted_bytes: event.persisted_bytes == null ? null : Number(event.persisted_bytes),
        elapsed_ms: Number(event.elapsed_ms),
        changed_files: event.changed_files ?? [],
      }));
      // A request for a finished call can no longer be answered: drop it from the queue.
      const asked = next.permissions.some((p) => p.tool_use_id === event.tool_use_id);
      return {
        ...next,
        permissions: asked ? next.permissions.filter((p) => p.tool_use_id !== event.tool_use_id) : next.permissions,
        changes_seq: (event.changed_files ?? []).length > 0 ? next.changes_seq + 1 : next.changes_seq,
      };
    }
    case "tool_result_replaced":
      // The turn's results went over one message's budget: the card shows what the model got.
      return updateTool(state, event.tool_use_id, (t) => ({
        ...t,
        content: event.content,
        persisted_path: event.persisted_path ?? t.persisted_path,
        persisted_bytes: event.persisted_bytes == null ? t.persisted_bytes : Number(event.persisted_bytes),
      }));
    case "permission_requested":
      if (state.permissions.some((p) => p.id === event.request.id)) return state;
      return { ...state, permissions: [...state.permissions, event.request] };
    case "notice":
      return withItem(state, (key) => ({ kind: "notice", key, level: "info", text: event.message }));
    case "retrying":
      return withItem(state, (key) => ({
        kind: "notice",
        key,
        level: "retry",
        text: `Retrying (attempt ${event.attempt}) in ${formatDelay(Number(event.delay_ms))}: ${retryReasonText(event.reason)}`,
      }));
    case "error":
      return withItem(state, (key) => ({ kind: "notice", key, level: "error", text: event.message }));
    case "usage": {
      const prev = state.usage;
      return {
        ...state,
        usage: {
          input_tokens: (prev?.input_tokens ?? 0) + Number(event.input_tokens),
          output_tokens: (prev?.output_tokens ?? 0) + Number(event.output_tokens),
          cache_read_input_tokens: (prev?.cache_read_input_tokens ?? 0) + Number(event.cache_read_input_tokens),
          cache_creation_input_tokens:
            (prev?.cache_creation_input_tokens ?? 0) + Number(event.cache_creation_input_tokens),
        },
        context: { tokens: Number(event.context_tokens), window: Number(event.context_window), compacted: false },
        // The engine's total: null once a response came from a model without a known price.
        cost: { ...state.cost, session_usd: event.session_cost_usd, answered: true },
        cache: { read_tokens: Number(event.session_cache_read_tokens), saved_usd: event.session_cache_saved_usd },
      };
    }
    case "turn_ended": {
      let items = state.items;
      if (items.some((it) => it.kind === "assistant" && it.streaming)) {
        items = writableItems(items);
        items.forEach((it, i) => {
          if (it.kind === "assistant" && it.streaming) items[i] = { ...it, streaming: false };
        });
      }
      let next: ConversationState = {
        ...state,
        items,
        running: false,
        last_end: event.reason,
        prompts:
          state.open_turn === null
            ? state.prompts
            : withPrompt(state.prompts, state.open_turn, (p) => ({ ...p, outcome: event.reason, ended_ms: now })),
        permissions: [],
        unstamped_turn: null,
        open_turn: null,
        changes_seq: state.changes_seq + 1,
      };
      if (event.reason === "max_turns") {
        // The engine stopped after its per-prompt limit of model calls: say which limit, and offer
        // to go on (one click, instead of typing "continue").
        next = withItem(next, (key) => ({ kind: "notice", key, level: "info", text: MODEL_CALL_LIMIT_NOTICE, action: "continue" }));
      } else if (event.reason !== "end_turn") {
        next = withItem(next, (key) => ({
          kind: "notice",
          key,
          level: event.reason === "error" ? "error" : "info",
          text: `Turn ended: ${event.reason.replace(/_/g, " ")}`,
        }));
      }
      return next;
    }
    case "turn_started":
      // A newer turn started: an earlier offer to continue is moot.
      return {
        ...withdrawOffer(state),
        turn: event.turn,
        unstamped_turn: event.turn,
        prompts: startPrompt(state.prompts, event.turn, now),
        open_turn: event.turn,
        cost: { ...state.cost, turn_start_usd: costSoFar(state.cost) },
      };
    case "mode_changed":
      return { ...state, mode: event.mode };
    case "todos_changed":
      return { ...state, todos: event.todos };
    default:
      return state;
  }
}

export const MODEL_CALL_LIMIT_NOTICE = "Stopped after the limit of model calls for one prompt (set in Settings → Defaults).";

/** Takes back what notices offer: the one keyed `key` (its offer was taken), or all of them. */
export function withdrawOffer(state: ConversationState, key?: string): ConversationState {
  const offers = (it: Item) => it.kind === "notice" && it.action !== undefined && (key === undefined || it.key === key);
  if (!state.items.some(offers)) return state;
  return { ...state, items: own(state.items.map((it) => (it.kind === "notice" && offers(it) ? { ...it, action: undefined } : it))) };
}

/** The session's cost now: nothing before the first response; null when the price is unknown. */
export function costSoFar(cost: CostState): number | null {
  return cost.session_usd ?? (cost.answered ? null : 0);
}

/** The latest turn's cost (the session's total now minus at the turn's start), when both are known. */
export function turnCost(cost: CostState): number | null {
  const now = costSoFar(cost);
  if (now === null || cost.turn_start_usd === null) return null;
  return Math.max(0, now - cost.turn_start_usd);
}

/**
 * The conversation rebuilt from what the engine now holds (after a compaction or a conversation
 * rewind), the same way a resumed session's is. What is no part of the conversation stays: usage,
 * the meter, cost, mode, the task list, and a turn that may be running.
 */
export function rebuild(
  before: ConversationState,
  history: HistoryMessage[],
  pastCalls: PastCall[],
  prompts: PromptInfo[],
): ConversationState {
  const rebuilt = fromHistory(history, before.mode, pastCalls, prompts);
  return {
    ...rebuilt,
    usage: before.usage,
    context: before.context,
    cost: before.cost,
    cache: before.cache,
    todos: before.todos,
    running: before.running,
    permissions: before.permissions,
    last_end: before.last_end,
    unstamped_turn: before.unstamped_turn,
    open_turn: before.open_turn,
    changes_seq: before.changes_seq,
  };
}

/** Removes an answered permission request from the queue. */
export function dropPermission(state: ConversationState, requestId: string): ConversationState {
  return { ...state, permissions: state.permissions.filter((p) => p.id !== requestId) };
}

/**
 * Rebuilds view state from a resumed session's messages. No live events exist for them; the
 * engine describes each call as the live events did (`pastCalls`: summary, batch, denial, saved
 * output, changed files) and lists the prompts with their numbers (`prompts`). A call it does not
 * describe gets a card of its own with its raw input.
 *
 * One pass that appends to a list and a map it owns: a day-long session has thousands of calls,
 * and rebuilding through the reducer's immutable steps copied both for every one of them. The
 * outcome is what those steps give (no item of a history streams, so an assistant message is
 * simply its text; no prompt waits for a number, so a user item has none until numberPrompts).
 */
export function fromHistory(
  messages: HistoryMessage[],
  mode: PermissionMode,
  pastCalls: PastCall[] = [],
  prompts: PromptInfo[] = [],
): ConversationState {
  const items: Item[] = [];
  // Built in place, made persistent once at the end.
  const tools = new Map<string, ToolCall>();
  let seq = 0;
  const add = (make: (key: string) => Item): Item => {
    seq += 1;
    const item = make(`i${seq}`);
    items.push(item);
    return item;
  };
  const described = new Map(pastCalls.map((c) => [c.tool_use_id, c]));
  // The user item each message became, by the message's index, for numbering prompts.
  const userItems = new Map<number, string>();
  for (const [index, message] of messages.entries()) {
    if (message.role === "assistant") {
      const { text, thinking } = message.words;
      if (text || thinking) add((key) => ({ kind: "assistant", key, text, thinking, streaming: false }));
      // The engine's batch index of the group item last added, to put batch mates together.
      let openBatch: number | null = null;
      for (const b of message.tool_uses) {
        const id = b.id;
        const name = b.name;
        const past = described.get(id);
        const joins = past !== undefined && openBatch === past.batch_index;
        const last = items[items.length - 1];
        const batchId = joins && last?.kind === "batch" ? last.batch_id : -seq - 1;
        tools.set(id, newToolCall({
          tool_use_id: id,
          tool_name: past?.tool_name ?? name,
          tool_kind: past?.kind ?? { kind: "other" },
          display_name: past?.display_name ?? name,
          summary: past?.summary || compactJson(b.input),
          status: "completed",
          from_history: true,
          batch_id: batchId,
          concurrent: past?.concurrent ?? false,
          denied: past?.denied ?? false,
          destructive: past?.destructive ?? false,
          persisted_path: past?.persisted_path ?? null,
          persisted_bytes: past?.persisted_bytes ?? null,
          changed_files: past?.changed_files ?? [],
        }));
        if (joins) {
          // Every item here was made by this pass and is not shared yet: growing it is safe.
          if (last?.kind === "batch") last.tool_ids.push(id);
        } else {
          add((key) => ({ kind: "batch", key, batch_id: batchId, concurrent: past?.concurrent ?? false, tool_ids: [id] }));
          openBatch = past?.batch_index ?? null;
        }
      }
    } else {
      const { text, images } = message.words;
      const attachments = message.words.attachments ?? [];
      if (text || images.length > 0 || attachments.length > 0) {
        const added = add((key) => ({ kind: "user", key, text, turn: null, images, attachments }));
        userItems.set(index, added.key);
      }
      for (const b of message.tool_results) {
        const tool = tools.get(b.tool_use_id);
        if (!tool) continue;
        const isError = b.is_error;
        tools.set(b.tool_use_id, {
          ...tool,
          status: finalStatus(isError, tool.denied),
          is_error: isError,
          // The engine's message for the errors it wrote (the content holds them wrapped for the model).
          error: described.get(b.tool_use_id)?.error ?? null,
          content: b.content,
        });
      }
    }
  }
  const calls: ToolCalls = PersistentMap(tools);
  const state: ConversationState = { ...initialState(mode), items, tools: calls, seq };
  return { ...numberPrompts(state, userItems, prompts), prompts, turn: prompts.at(-1)?.turn ?? null };
}

/**
 * Puts the engine's prompt numbers on the user items of a rebuilt history: each prompt names the
 * index of the message that holds it. Prompts compacted out of the history have none and cannot be
 * pointed at from here.
 */
function numberPrompts(state: ConversationState, userItems: Map<number, string>, prompts: PromptInfo[]): ConversationState {
  const turns = new Map<string, number>();
  for (const prompt of prompts) {
    const key = prompt.message_index === null ? undefined : userItems.get(prompt.message_index);
    if (key !== undefined) turns.set(key, prompt.turn);
  }
  if (turns.size === 0) return state;
  const items = state.items.map((it) => (it.kind === "user" && turns.has(it.key) ? { ...it, turn: turns.get(it.key)! } : it));
  return { ...state, items };
}

function compactJson(v: unknown): string {
  const s = JSON.stringify(v) ?? "";
  return s.length > 120 ? `${s.slice(0, 117)}…` : s;
}
