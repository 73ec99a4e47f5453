// The reducer over a day-long session: resuming thousands of calls rebuilds the same state as
// replaying them through the reducer, without copying per call, and a frame's batch of events
// gives what reducing them one by one gives, copying the item list once (the map of calls is
// persistent: an update shares all but a few nodes with the map before).
import { Map as PersistentMap } from "immutable";
import { describe, expect, it } from "vitest";
import type { Event } from "../bindings/Event";
import type { HistoryMessage } from "../bindings/HistoryMessage";
import type { PastCall } from "../bindings/PastCall";
import type { PastToolResult } from "../bindings/PastToolResult";
import type { PastToolUse } from "../bindings/PastToolUse";
import type { PromptInfo } from "../bindings/PromptInfo";
import { copyStats, finalStatus, fromHistory, initialState, newToolCall, reduce, reduceAll } from "../lib/conversation/reducer";
import type { ConversationState, ToolCall } from "../lib/conversation/types";
import { completed, queued, usage } from "./fixtures";
import { answered, assistantMessage, said, userMessage } from "./messages";
import { inputDelta, inputStarted, subagentStep } from "./subagentFixtures";

/** A resumed session of `calls` tool calls: prompts, answers with text and thinking, batches of
 *  one to three calls (some undescribed, denied, failed, with saved outputs or changed files),
 *  a prompt with an image, and a compacted prompt without its message. */
function longHistory(calls: number): { messages: HistoryMessage[]; pastCalls: PastCall[]; prompts: PromptInfo[] } {
  const messages: HistoryMessage[] = [];
  const pastCalls: PastCall[] = [];
  const prompts: PromptInfo[] = [{ turn: 1, text: "compacted away", time_ms: 0, message_index: null, outcome: null, ended_ms: null }];
  let made = 0;
  let batch = 0;
  for (let round = 0; made < calls; round++) {
    if (round % 5 === 0) {
      const index = messages.length;
      const image = round % 15 === 0 ? [{ media_type: "image/png", data: "iVBORw0KGgo=" }] : [];
      messages.push(said(`prompt ${round}`, image));
      prompts.push({ turn: prompts.length + 1, text: `prompt ${round}`, time_ms: round, message_index: index, outcome: null, ended_ms: null });
    }
    const thinking = round % 2 === 0 ? `thinking ${round}` : "";
    const text = round % 3 !== 0 ? `answer **${round}**` : "";
    const uses: PastToolUse[] = [];
    const results: PastToolResult[] = [];
    const inRound = Math.min(calls - made, 1 + (round % 4));
    for (let k = 0; k < inRound; k++, made++) {
      const id = `t${made}`;
      uses.push({ id, name: k % 2 ? "Read" : "Bash", input: { n: made } });
      // Every seventh call is not described by the engine: it gets its own card from its input.
      if (made % 7 !== 3) {
        if (k !== 1) batch++; // the second call of a round joins the first one's batch
        pastCalls.push({
          tool_use_id: id,
          tool_name: k % 2 ? "Read" : "Bash",
          kind: k % 2 ? { kind: "read" } : { kind: "shell" },
          display_name: k % 2 ? "Read" : "Bash",
          summary: made % 11 === 0 ? "" : `call ${made}`,
          batch_index: batch,
          concurrent: k > 0,
          denied: made % 13 === 0,
          error: null,
          destructive: made % 17 === 0,
          persisted_path: made % 19 === 0 ? `/o/${made}.txt` : null,
          persisted_bytes: made % 19 === 0 ? 4096 : null,
          changed_files: made % 23 === 0 ? [`/p/f${made}.rs`] : [],
        });
      }
      if (made % 29 !== 5) {
        results.push({ tool_use_id: id, is_error: made % 9 === 0, content: [{ type: "text", text: `out ${made}` }] });
      }
    }
    messages.push({ ...answered(text, [], thinking), tool_uses: uses });
    if (results.length) messages.push({ role: "user", words: { text: "", images: [], attachments: [] }, tool_results: results });
  }
  return { messages, pastCalls, prompts };
}

/**
 * The same history replayed through the reducer: each message as the engine's event for it, each
 * call queued as a live `tool_queued` (in the batch the engine described), then the call as the
 * engine describes it and its result. The calls are kept aside, as the engine describes them, and
 * put in the state at the end.
 */
function replay(messages: HistoryMessage[], pastCalls: PastCall[], prompts: PromptInfo[]): ConversationState {
  let s = initialState("default");
  const tools: Record<string, ToolCall> = {};
  const described = new Map(pastCalls.map((c) => [c.tool_use_id, c]));
  const userItems = new Map<number, string>();
  messages.forEach((message, index) => {
    if (message.role === "assistant") {
      s = reduce(s, assistantMessage(message.words.text, message.words.thinking), 0);
      let open: number | null = null;
      for (const b of message.tool_uses) {
        const { id, name } = b;
        const past = described.get(id);
        const joins = past !== undefined && open === past.batch_index;
        const last = s.items.at(-1);
        const batchId = joins && last?.kind === "batch" ? last.batch_id : -s.seq - 1;
        const summary = past?.summary || JSON.stringify(b.input);
        s = { ...reduce(s, queued(id, batchId, past?.concurrent ?? false, past?.tool_name ?? name, summary), 0), tools: PersistentMap() };
        if (!joins) open = past?.batch_index ?? null;
        tools[id] = newToolCall({
          tool_use_id: id,
          tool_name: past?.tool_name ?? name,
          tool_kind: past?.kind ?? { kind: "other" },
          display_name: past?.display_name ?? name,
          summary,
          status: "completed",
          from_history: true,
          batch_id: batchId,
          concurrent: past?.concurrent ?? false,
          denied: past?.denied ?? false,
          destructive: past?.destructive ?? false,
          persisted_path: past?.persisted_path ?? null,
          persisted_bytes: past?.persisted_bytes ?? null,
          changed_files: past?.changed_files ?? [],
        });
      }
    } else {
      const before = s.items.length;
      s = reduce(s, userMessage(message.words.text, message.words.images), 0);
      if (s.items.length > before) userItems.set(index, s.items.at(-1)!.key);
      for (const b of message.tool_results) {
        const t = tools[b.tool_use_id]!;
        tools[t.tool_use_id] = { ...t, status: finalStatus(b.is_error, t.denied), is_error: b.is_error, content: b.content };
      }
    }
  });
  const turns = new Map(prompts.flatMap((p) => (p.message_index === null ? [] : [[userItems.get(p.message_index), p.turn] as const])));
  const items = s.items.map((it) => (it.kind === "user" && turns.has(it.key) ? { ...it, turn: turns.get(it.key)! } : it));
  // The engine's list of prompts is kept as it came (the prompt navigator reads it).
  return { ...s, items, tools: PersistentMap(tools), prompts, turn: prompts.at(-1)?.turn ?? null };
}

describe("resuming a day-long session", () => {
  it("rebuilds 5,000 calls as replaying them through the reducer does", () => {
    const { messages, pastCalls, prompts } = longHistory(5000);
    const rebuilt = fromHistory(messages, "default", pastCalls, prompts);
    expect(rebuilt.tools.size).toBe(5000);
    expect(rebuilt.items.filter((i) => i.kind === "batch").length).toBeGreaterThan(2000);
    expect(rebuilt).toEqual(replay(messages, pastCalls, prompts));
    // Spot checks that the history exercises what it should.
    expect(rebuilt.tools.get("t13")!.status).toBe("denied");
    expect(rebuilt.tools.get("t9")!.status).toBe("error");
    // A call the engine did not describe: its input, beside the name the model gave.
    expect(rebuilt.tools.get("t3")).toMatchObject({ display_name: "Bash", tool_kind: { kind: "other" }, summary: '{"n":3}' });
    expect(rebuilt.items.some((i) => i.kind === "user" && i.images.length === 1)).toBe(true);
    expect(rebuilt.items.find((i) => i.kind === "user")).toMatchObject({ turn: 2 });
  });

  it("copies nothing per call: the work grows with the history, not with its square", () => {
    for (const calls of [1000, 4000]) {
      const { messages, pastCalls, prompts } = longHistory(calls);
      const before = copyStats.entries;
      fromHistory(messages, "default", pastCalls, prompts);
      expect(copyStats.entries - before).toBe(0);
    }
    // Rebuilt call by call through the reducer, every queued call (each its own card here) copies
    // the list of the items before it: n²/2 entries.
    const { messages } = longHistory(1000);
    const before = copyStats.entries;
    replayWithCalls(messages);
    expect(copyStats.entries - before).toBe(1000 * 999 / 2);
  });
});

/** Calls queued one by one through `reduce`, as rebuilding used to add them. */
function replayWithCalls(messages: HistoryMessage[]) {
  let s = initialState("default");
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const b of message.tool_uses) s = reduce(s, queued(b.id, s.seq, false), 0);
  }
  return s;
}

/** Freezes a state all the way down: reducing must never write into the state it was given. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

describe("a frame's batch of events", () => {
  const stream = (): Event[] => [
    { type: "turn_started", turn: 1 },
    userMessage("go"),
    { type: "thinking_delta", text: "hm" },
    { type: "text_delta", text: "Reading " },
    { type: "text_delta", text: "the files." },
    queued("a", 1, true, "Read"),
    queued("b", 1, true, "Read"),
    { type: "tool_started", tool_use_id: "a" },
    ...Array.from({ length: 50 }, (_, i): Event => ({ type: "tool_progress", tool_use_id: "a", progress: { kind: "output", text: `line ${i}\n` } })),
    completed("a", { changed_files: ["/p/x"] }),
    assistantMessage("Reading the files.", "hm"),
    { type: "text_delta", text: "" },
    usage({ session_cost_usd: 0.5, session_cache_read_tokens: 1234, session_cache_saved_usd: 0.25 }),
    { type: "text_delta", text: "Done" },
    { type: "turn_ended", reason: "max_turns" },
    { type: "turn_started", turn: 2 },
  ];

  it("gives what reducing the events one by one gives, and leaves the state it got alone", () => {
    const start = deepFreeze(fromHistory([said("earlier"), answered("yes")], "default"));
    const events = stream();
    const one = events.reduce((s, e) => reduce(s, e, 7), start);
    let all!: ConversationState;
    expect(() => (all = reduceAll(start, events, 7))).not.toThrow();
    expect(all).toEqual(one);
    expect(all.cache).toEqual({ read_tokens: 1234, saved_usd: 0.25 });
    // Split into frames anywhere, the outcome is the same.
    const a = reduceAll(start, events.slice(0, 20), 7);
    expect(reduceAll(deepFreeze(a), events.slice(20), 7)).toEqual(one);
  });

  it("copies the item list once per batch, not once per event, and never the map of calls", () => {
    const { messages, pastCalls, prompts } = longHistory(2000);
    let s = fromHistory(messages, "default", pastCalls, prompts);
    s = reduce(s, queued("live", 99, false, "Bash"), 0);
    s = reduce(s, { type: "tool_started", tool_use_id: "live" }, 0);
    const output: Event[] = Array.from({ length: 200 }, (_, i) => ({ type: "tool_progress", tool_use_id: "live", progress: { kind: "output", text: `${i}\n` } }));
    const deltas: Event[] = Array.from({ length: 200 }, () => ({ type: "text_delta", text: "x" }));
    const before = copyStats.entries;
    reduceAll(s, [...output, ...deltas], 0);
    const perBatch = copyStats.entries - before;
    expect(perBatch).toBe(s.items.length);
    const beforeOne = copyStats.entries;
    [...output, ...deltas].reduce((state, e) => reduce(state, e, 0), s);
    expect(copyStats.entries - beforeOne).toBeGreaterThan(100 * perBatch);
  });
});

describe("calls whose input streams, and sub-agents", () => {
  it("streams 1,000 calls of 20 reports each: the item list is copied when a card comes and when it is queued, never for a report", () => {
    const { messages, pastCalls, prompts } = longHistory(2000);
    let s = fromHistory(messages, "default", pastCalls, prompts);
    let budget = 0;
    let reports = 0;
    const before = copyStats.entries;
    for (let c = 0; c < 1000; c++) {
      const id = `w${c}`;
      // Each in a frame of its own, as the engine sends them (a report at most every 100 ms): the
      // card, its input, the call queued and run, its result.
      budget += s.items.length;
      s = reduceAll(s, [inputStarted(id, "Write")], 0);
      const beforeReports = copyStats.entries;
      for (let d = 0; d < 20; d++) s = reduceAll(s, [inputDelta(id, `line ${d}\n`, { path: `/p/f${c}.txt`, bytes: 8 * (d + 1) })], 0);
      reports += copyStats.entries - beforeReports;
      budget += s.items.length;
      s = reduceAll(s, [queued(id, 100_000 + c, false, "Write"), { type: "tool_started", tool_use_id: id }], 0);
      s = reduceAll(s, [completed(id)], 0);
    }
    expect(reports).toBe(0);
    expect(copyStats.entries - before).toBe(budget);
    expect(s.tools.get("w999")).toMatchObject({ status: "completed", stream: null, batch_id: 100_999 });
    expect(s.tools.size).toBe(3000);
  });

  it("copies the item list once for a frame of many streaming calls, as for any frame", () => {
    const { messages, pastCalls, prompts } = longHistory(2000);
    const s = fromHistory(messages, "default", pastCalls, prompts);
    const frame: Event[] = Array.from({ length: 50 }, (_, c) => [
      inputStarted(`w${c}`, "Write"),
      ...Array.from({ length: 20 }, (_, d) => inputDelta(`w${c}`, `${d}\n`)),
      queued(`w${c}`, 200_000 + c, true, "Write"),
    ]).flat();
    const before = copyStats.entries;
    const after = reduceAll(s, frame, 0);
    expect(copyStats.entries - before).toBe(s.items.length);
    expect(after).toEqual(frame.reduce((state, e) => reduce(state, e, 0), s));
  });

  it("reduces a sub-agent's steps without copying the session's item list", () => {
    const { messages, pastCalls, prompts } = longHistory(2000);
    let s = fromHistory(messages, "default", pastCalls, prompts);
    s = reduce(s, queued("ag", 99, false, "Agent"), 0);
    s = reduce(s, { type: "tool_started", tool_use_id: "ag" }, 0);
    const before = copyStats.entries;
    for (let i = 0; i < 200; i++) s = reduceAll(s, [subagentStep("ag", "agent-1", { type: "text_delta", text: `${i} ` })], 0);
    // Only the sub-agent's own (one-item) list is copied.
    expect(copyStats.entries - before).toBeLessThanOrEqual(200);
    expect(s.tools.get("ag")!.subagent!.state.items).toHaveLength(1);
  });
});
