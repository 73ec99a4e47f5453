import { describe, expect, it } from "vitest";
import type { Event } from "../bindings/Event";
import type { PastCall } from "../bindings/PastCall";
import type { JsonValue } from "../bindings/serde_json/JsonValue";
import { dropPermission, fromHistory, initialState, MODEL_CALL_LIMIT_NOTICE, rebuild, reduce, turnCost, withdrawOffer } from "../lib/conversation/reducer";
import { keepLate } from "../lib/conversation/turns";
import type { ConversationState, Item } from "../lib/conversation/types";
import { bashRequest, completed, editRequest, queued, usage } from "./fixtures";
import { answered, assistantMessage, results, said, userMessage } from "./messages";

function run(events: Event[], start: ConversationState = initialState()): ConversationState {
  return events.reduce((s, e, i) => reduce(s, e, 1000 + i), start);
}

const batches = (s: ConversationState) => s.items.filter((i): i is Extract<Item, { kind: "batch" }> => i.kind === "batch");

describe("reducer: tool batches and statuses", () => {
  it("groups consecutive tool_queued events by batch_id and never merges different ids", () => {
    const s = run([queued("a", 1, true), queued("b", 1, true), queued("c", 1, true), queued("d", 2, false), queued("e", 3, false)]);
    const b = batches(s);
    expect(b.map((x) => x.tool_ids)).toEqual([["a", "b", "c"], ["d"], ["e"]]);
    expect(b.map((x) => x.concurrent)).toEqual([true, false, false]);
  });

  it("moves a call queued → executing → completed, keeping elapsed_ms and start time", () => {
    let s = run([queued("a", 1, false)]);
    expect(s.tools.get("a")!.status).toBe("queued");
    s = reduce(s, { type: "tool_started", tool_use_id: "a" }, 5000);
    expect(s.tools.get("a")!.status).toBe("executing");
    expect(s.tools.get("a")!.started_at).toBe(5000);
    s = reduce(s, completed("a", { elapsed_ms: 321 }), 6000);
    expect(s.tools.get("a")!.status).toBe("completed");
    expect(s.tools.get("a")!.elapsed_ms).toBe(321);
    expect(s.tools.get("a")!.content).toEqual([{ type: "text", text: "ok" }]);
  });

  it("marks errors and denials distinctly (denied wins over is_error)", () => {
    const s = run([
      queued("a", 1, true),
      queued("b", 1, true),
      completed("a", { is_error: true }),
      completed("b", { is_error: true, denied: true, content: [{ type: "text", text: "User said no" }] }),
    ]);
    expect(s.tools.get("a")!.status).toBe("error");
    expect(s.tools.get("b")!.status).toBe("denied");
    expect(s.tools.get("b")!.denied).toBe(true);
  });

  it("keeps only the last 20 lines of streamed output, joining partial lines", () => {
    let s = run([queued("a", 1, false, "Bash"), { type: "tool_started", tool_use_id: "a" }]);
    const out = (text: string): Event => ({ type: "tool_progress", tool_use_id: "a", progress: { kind: "output", text } }) as Event;
    s = reduce(s, out("hel"), 0);
    s = reduce(s, out("lo\nworld\n"), 0);
    expect(s.tools.get("a")!.output_tail).toEqual(["hello", "world", ""]);
    for (let i = 0; i < 50; i++) s = reduce(s, out(`line ${i}\n`), 0);
    expect(s.tools.get("a")!.output_tail.length).toBe(20);
    expect(s.tools.get("a")!.output_tail.at(-2)).toBe("line 49");
    s = reduce(s, { type: "tool_progress", tool_use_id: "a", progress: { kind: "status", message: "Searching… 3" } } as Event, 0);
    expect(s.tools.get("a")!.status_line).toBe("Searching… 3");
  });

  it("records a persisted output's path and size", () => {
    const s = run([queued("a", 1, false, "Bash"), completed("a", { persisted_path: "/tmp/out.txt", persisted_bytes: 2048 })]);
    expect(s.tools.get("a")!.persisted_path).toBe("/tmp/out.txt");
    expect(s.tools.get("a")!.persisted_bytes).toBe(2048);
  });

  it("shows what the model got once a result over the message's budget is replaced", () => {
    const big = "x".repeat(60_000);
    let s = run([queued("a", 1, true, "Bash"), queued("b", 1, true, "Read"), completed("a", { content: [{ type: "text", text: big }] }), completed("b")]);
    expect(s.tools.get("a")!.content).toEqual([{ type: "text", text: big }]);
    expect([s.tools.get("a")!.persisted_path, s.tools.get("a")!.persisted_bytes]).toEqual([null, null]);
    const preview = [{ type: "text" as const, text: "<persisted-output>\nOutput too large (58.6KB). Full output saved to: /o/a.txt\n</persisted-output>" }];
    s = reduce(s, { type: "tool_result_replaced", tool_use_id: "a", content: preview, persisted_path: "/o/a.txt", persisted_bytes: 60_000 }, 0);
    expect(s.tools.get("a")).toMatchObject({ status: "completed", content: preview, persisted_path: "/o/a.txt", persisted_bytes: 60_000 });
    // The other call of the turn keeps its result; a replacement for an unknown call adds nothing.
    expect(s.tools.get("b")!.content).toEqual([{ type: "text", text: "ok" }]);
    const after = reduce(s, { type: "tool_result_replaced", tool_use_id: "ghost", content: [], persisted_path: null, persisted_bytes: null }, 0);
    expect(after.tools).toEqual(s.tools);
    expect(after.items).toEqual(s.items);
  });

  it("ignores events for unknown calls instead of inventing cards", () => {
    const s = run([{ type: "tool_started", tool_use_id: "ghost" }, completed("ghost")]);
    expect(s.tools.size).toBe(0);
    expect(s.items).toEqual([]);
  });
});

describe("reducer: assistant text", () => {
  it("accumulates text deltas, then replaces them with the final message's words", () => {
    let s = run([
      { type: "thinking_delta", text: "Let me " },
      { type: "thinking_delta", text: "think" },
      { type: "text_delta", text: "Hel" },
      { type: "text_delta", text: "lo wor" },
    ]);
    expect(s.items).toHaveLength(1);
    expect(s.items[0]).toMatchObject({ kind: "assistant", text: "Hello wor", thinking: "Let me think", streaming: true });
    s = reduce(s, assistantMessage("Hello world.", "Let me think."), 0);
    expect(s.items).toHaveLength(1);
    expect(s.items[0]).toMatchObject({ kind: "assistant", text: "Hello world.", thinking: "Let me think.", streaming: false });
    // The next deltas start a new message rather than appending to the finished one.
    s = reduce(s, { type: "text_delta", text: "Next" }, 0);
    expect(s.items).toHaveLength(2);
  });

  it("drops an empty streaming item when the final message only uses tools", () => {
    let s = run([{ type: "text_delta", text: "" }]);
    s = reduce(s, assistantMessage(""), 0);
    expect(s.items).toEqual([]);
  });

  it("keeps text streamed before mid-stream tool calls once, above their cards", () => {
    let s = run([
      { type: "text_delta", text: "I'll read " },
      { type: "text_delta", text: "the files." },
      queued("r1", 1, true, "Read"),
      queued("r2", 1, true, "Read"),
    ]);
    s = reduce(s, assistantMessage("I'll read the files."), 0);
    const texts = s.items.filter((i) => i.kind === "assistant");
    expect(texts).toHaveLength(1);
    expect(texts[0]).toMatchObject({ text: "I'll read the files.", streaming: false });
    expect(s.items[0]!.kind).toBe("assistant");
  });

  it("shows user prompts but not tool-result-only user messages", () => {
    // A message that only answers calls comes from the engine with no words and no pictures.
    const s = run([userMessage("fix the bug"), userMessage("")]);
    expect(s.items).toEqual([{ kind: "user", key: "i1", text: "fix the bug", turn: null, images: [], attachments: [] }]);
  });

  it("keeps a prompt's images, live and from a resumed history, and shows a prompt of only an image", () => {
    const image = { media_type: "image/jpeg", data: "/9j/4AAQ" };
    const expected: Item[] = [
      { kind: "user", key: "i1", text: "what is this?", turn: 1, images: [{ media_type: "image/jpeg", data: "/9j/4AAQ" }], attachments: [] },
      { kind: "user", key: "i2", text: "", turn: null, images: [{ media_type: "image/jpeg", data: "/9j/4AAQ" }], attachments: [] },
    ];
    const live = run([
      { type: "turn_started", turn: 1 },
      userMessage("what is this?", [image]),
      userMessage("", [image]),
    ]);
    expect(live.items).toEqual(expected);
    const resumed = fromHistory([said("what is this?", [image]), said("", [image])], "default", [], [{ turn: 1, text: "what is this?", time_ms: 0, message_index: 0, outcome: null, ended_ms: null }]);
    expect(resumed.items).toEqual(expected);
  });
});

describe("reducer: session-level events", () => {
  it("queues permission requests and drops them when answered or when the call completes", () => {
    let s = run([queued("tu-r-bash", 1, false, "Bash"), { type: "permission_requested", request: bashRequest() } as Event, { type: "permission_requested", request: editRequest() } as Event]);
    expect(s.permissions.map((p) => p.id)).toEqual(["r-bash", "r-edit"]);
    s = dropPermission(s, "r-edit");
    expect(s.permissions.map((p) => p.id)).toEqual(["r-bash"]);
    s = reduce(s, completed("tu-r-bash", { denied: true, is_error: true }), 0);
    expect(s.permissions).toEqual([]);
  });

  it("tracks todos, mode, usage totals, notices and the end of the turn", () => {
    let s = run([
      { type: "mode_changed", mode: "plan" },
      { type: "todos_changed", todos: [{ content: "Run tests", status: "in_progress", activeForm: "Running tests" }] } as Event,
      usage({ input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 5, cache_creation_input_tokens: 1, session_cost_usd: 0.01, context_tokens: 116 }),
      usage({ input_tokens: 50, output_tokens: 5, session_cost_usd: 0.02, context_tokens: 171 }),
      { type: "retrying", attempt: 2, delay_ms: 1500, reason: { kind: "status", status: 529, error_type: "overloaded_error", message: "Overloaded" } },
      { type: "error", message: "boom" },
      { type: "text_delta", text: "partial" },
    ], { ...initialState(), running: true });
    expect(s.mode).toBe("plan");
    expect(s.todos).toHaveLength(1);
    expect(s.usage).toEqual({ input_tokens: 150, output_tokens: 15, cache_read_input_tokens: 5, cache_creation_input_tokens: 1 });
    expect(s.context).toEqual({ tokens: 171, window: 200_000, compacted: false });
    expect(s.cost).toEqual({ session_usd: 0.02, answered: true, turn_start_usd: null });
    const notices = s.items.filter((i) => i.kind === "notice");
    expect(notices.map((n) => (n as { level: string }).level)).toEqual(["retry", "error"]);
    expect((notices[0] as { text: string }).text).toBe(
      "Retrying (attempt 2) in 1.5s: the API is overloaded (529 overloaded_error): Overloaded",
    );
    s = reduce(s, { type: "turn_ended", reason: "aborted" }, 0);
    expect(s.running).toBe(false);
    expect(s.last_end).toBe("aborted");
    expect(s.items.some((i) => i.kind === "assistant" && i.streaming)).toBe(false);
    expect(s.items.at(-1)).toMatchObject({ kind: "notice", text: "Turn ended: aborted" });
  });

  it("rebuilds a resumed session's history with finished tool cards", () => {
    const s = fromHistory(
      [said("hi"), answered("Reading.", [["t1", "Read", { file_path: "a" }]]), results(["t1", "data", true])],
      "acceptEdits",
    );
    expect(s.mode).toBe("acceptEdits");
    expect(s.items.map((i) => i.kind)).toEqual(["user", "assistant", "batch"]);
    expect(s.tools.get("t1")).toMatchObject({ status: "error", from_history: true, content: [{ type: "text", text: "data" }] });
  });

  it("rebuilds batches, summaries, denials and saved outputs as the engine describes them", () => {
    const past = (tool_use_id: string, batch_index: number, concurrent: boolean, extra: Partial<PastCall> = {}): PastCall => ({
      tool_use_id,
      tool_name: "Read",
      kind: { kind: "read" },
      display_name: "Read",
      summary: `${tool_use_id}.md`,
      batch_index,
      concurrent,
      denied: false,
      error: null,
      destructive: false,
      persisted_path: null,
      persisted_bytes: null,
      changed_files: [],
      ...extra,
    });
    const use = (id: string): [string, string, JsonValue] => [id, "Read", { file_path: `/p/${id}.md` }];
    const result = (id: string, is_error = false): [string, string, boolean] => [
      id,
      is_error ? "<tool_use_error>Permission to use Bash was denied.</tool_use_error>" : "x",
      is_error,
    ];
    const s = fromHistory(
      [
        said("go"),
        answered("", [use("a"), use("b"), use("c"), use("d")]),
        results(result("a"), result("b"), result("c", true), result("d")),
        answered("", [use("e")]),
      ],
      "default",
      [
        past("a", 1, true),
        past("b", 1, true),
        past("c", 2, false, {
          tool_name: "Bash",
          summary: "rm -rf build",
          denied: true,
          error: "Permission to use Bash was denied.",
        }),
        past("d", 3, true, { persisted_path: "/data/d.txt", persisted_bytes: 5000 }),
        past("e", 4, true),
      ],
    );
    const batches = s.items.filter((i) => i.kind === "batch");
    expect(batches.map((b) => [b.tool_ids, b.concurrent])).toEqual([
      [["a", "b"], true],
      [["c"], false],
      [["d"], true],
      [["e"], true],
    ]);
    expect(new Set(batches.map((b) => b.batch_id)).size).toBe(4);
    expect(s.tools.get("a")).toMatchObject({ summary: "a.md", status: "completed" });
    // The engine's message, as the live event gives it; the card never reads the wrapper.
    expect(s.tools.get("c")).toMatchObject({
      tool_name: "Bash",
      summary: "rm -rf build",
      status: "denied",
      error: "Permission to use Bash was denied.",
    });
    expect(s.tools.get("a")).toMatchObject({ error: null });
    expect(s.tools.get("d")).toMatchObject({ persisted_path: "/data/d.txt", persisted_bytes: 5000 });
    expect(s.items.filter((i) => i.kind === "user").map((i) => i.kind === "user" && i.text)).toEqual(["go"]);
  });
});

describe("reducer: prompt numbers and changed files", () => {
  const prompt = (turn: number, text: string, message_index: number | null) => ({ turn, text, time_ms: 0, message_index, outcome: null, ended_ms: null });
  const users = (s: ConversationState) => s.items.flatMap((i) => (i.kind === "user" ? [[i.text, i.turn]] : []));

  it("gives a live prompt the number of the turn_started before it, and nothing else that number", () => {
    const s = run([
      { type: "turn_started", turn: 4 },
      userMessage("fix it"),
      assistantMessage("done"),
      userMessage("Stop hook feedback:\nlint"),
    ]);
    expect(users(s)).toEqual([
      ["fix it", 4],
      ["Stop hook feedback:\nlint", null],
    ]);
    expect([s.turn, s.unstamped_turn]).toEqual([4, null]);
  });

  it("numbers a resumed history's prompts by the message the engine says holds each one", () => {
    const s = fromHistory(
      [
        said("This session continues from an earlier conversation that was compacted…"),
        answered("ok"),
        said("again"),
        answered("ok"),
        // A prompt sent while calls were answered rides in the message of their results.
        { ...results(["x", ""]), words: { text: "again", images: [], attachments: [] } },
      ],
      "default",
      [],
      // Prompt 1 was compacted away; a compaction summary is no prompt.
      [prompt(1, "start", null), prompt(2, "again", 2), prompt(5, "again", 4)],
    );
    expect(users(s)).toEqual([
      ["This session continues from an earlier conversation that was compacted…", null],
      ["again", 2],
      ["again", 5],
    ]);
    expect(s.turn).toBe(5);
  });

  it("records the files a call changed and counts every change to the files", () => {
    let s = run([queued("a", 1, false, "Edit"), queued("b", 1, false, "Read")]);
    s = reduce(s, completed("a", { changed_files: ["/p/a.rs"] }), 0);
    expect([s.tools.get("a")!.changed_files, s.changes_seq]).toEqual([["/p/a.rs"], 1]);
    s = reduce(s, completed("b"), 0);
    expect([s.tools.get("b")!.changed_files, s.changes_seq]).toEqual([[], 1]);
    s = reduce(s, { type: "turn_ended", reason: "end_turn" }, 0);
    expect(s.changes_seq).toBe(2);
  });
});

describe("reducer: context meter and cost", () => {
  it("takes the window's use from the latest response and the turn's cost from the session's totals", () => {
    // A fresh session: the engine has no total before the first response, so the first turn starts at 0.
    let s = run([{ type: "turn_started", turn: 1 }, usage({ session_cost_usd: 0.01, context_tokens: 5000 }), usage({ session_cost_usd: 0.015, context_tokens: 9000 })]);
    expect(s.context).toEqual({ tokens: 9000, window: 200_000, compacted: false });
    expect(s.cost).toEqual({ session_usd: 0.015, answered: true, turn_start_usd: 0 });
    expect(turnCost(s.cost)).toBeCloseTo(0.015);

    s = run([{ type: "turn_ended", reason: "end_turn" }, { type: "turn_started", turn: 2 }], s);
    expect(s.cost).toEqual({ session_usd: 0.015, answered: true, turn_start_usd: 0.015 });
    expect(turnCost(s.cost)).toBe(0);
    s = reduce(s, usage({ session_cost_usd: 0.0425, context_tokens: 12_000 }), 0);
    expect(turnCost(s.cost)).toBeCloseTo(0.0275);
  });

  it("has no cost once a response came from a model without a known price", () => {
    let s = run([{ type: "turn_started", turn: 1 }, usage({ session_cost_usd: 0.01 })]);
    s = reduce(s, usage({ session_cost_usd: null }), 0);
    expect(s.cost).toEqual({ session_usd: null, answered: true, turn_start_usd: 0 });
    expect(turnCost(s.cost)).toBeNull();
    s = run([{ type: "turn_started", turn: 2 }, usage({ session_cost_usd: null })], s);
    expect(s.cost.turn_start_usd).toBeNull();
    expect(turnCost(s.cost)).toBeNull();
  });

  it("rebuilds the conversation but keeps what is no part of it", () => {
    const before = run(
      [userMessage("old"), usage({ session_cost_usd: 0.2, context_tokens: 150_000 }), { type: "todos_changed", todos: [{ content: "x", status: "pending", activeForm: "x" }] }],
      { ...initialState("plan"), changes_seq: 4 },
    );
    const after = rebuild(before, [said("summary"), answered("ok")], [], []);
    expect(after.items.map((i) => i.kind)).toEqual(["user", "assistant"]);
    expect(after).toMatchObject({ mode: "plan", usage: before.usage, context: before.context, cost: before.cost, todos: before.todos, changes_seq: 4 });
  });
});

describe("reducer: the model-call limit", () => {
  const notices = (s: ConversationState) => s.items.filter((i): i is Extract<Item, { kind: "notice" }> => i.kind === "notice");

  it("says a turn stopped at the limit and offers to continue; other ends keep their notices", () => {
    const running: ConversationState = { ...initialState(), running: true };
    const s = reduce(running, { type: "turn_ended", reason: "max_turns" }, 0);
    expect(s).toMatchObject({ running: false, last_end: "max_turns" });
    expect(notices(s)).toEqual([{ kind: "notice", key: expect.any(String), level: "info", text: MODEL_CALL_LIMIT_NOTICE, action: "continue" }]);
    expect(MODEL_CALL_LIMIT_NOTICE).toBe("Stopped after the limit of model calls for one prompt (set in Settings → Defaults).");

    const ends = (["max_tokens", "aborted", "interrupted", "stopped_by_hook", "refusal", "error"] as const).map((reason) =>
      notices(reduce(running, { type: "turn_ended", reason }, 0)).at(-1),
    );
    expect(ends.map((n) => n?.text)).toEqual([
      "Turn ended: max tokens",
      "Turn ended: aborted",
      "Turn ended: interrupted",
      "Turn ended: stopped by hook",
      "Turn ended: refusal",
      "Turn ended: error",
    ]);
    expect(ends.every((n) => n?.action === undefined)).toBe(true);
    expect(notices(reduce(running, { type: "turn_ended", reason: "end_turn" }, 0))).toEqual([]);
  });

  it("withdraws the offer once a newer turn starts, or when it is taken", () => {
    const limited = (s: ConversationState) => run([{ type: "turn_ended", reason: "max_turns" }], { ...s, running: true });
    let s = limited(limited(initialState()));
    expect(notices(s).map((n) => n.action)).toEqual(["continue", "continue"]);
    s = reduce(s, { type: "turn_started", turn: 3 }, 0);
    expect(notices(s).map((n) => n.action)).toEqual([undefined, undefined]);
    expect(notices(s).map((n) => n.text)).toEqual([MODEL_CALL_LIMIT_NOTICE, MODEL_CALL_LIMIT_NOTICE]);

    s = limited(s);
    const key = notices(s).at(-1)!.key;
    expect(withdrawOffer(s, "i999")).toBe(s);
    expect(notices(withdrawOffer(s, key)).map((n) => n.action)).toEqual([undefined, undefined, undefined]);
  });
});

describe("late events of a finished turn", () => {
  it("never change the status; what only touches the old turn's cards or adds a line is kept", () => {
    const late: Event[] = [
      { type: "turn_ended", reason: "max_turns" },
      { type: "turn_started", turn: 2 },
      { type: "permission_requested", request: bashRequest() },
      completed("t1"),
      { type: "notice", message: "hook said hi" },
      { type: "error", message: "boom" },
      { type: "text_delta", text: "tail" },
      usage({}),
    ];
    expect(late.map((e) => keepLate(e, false))).toEqual([false, false, false, true, true, true, true, true]);
    // Once a newer turn started, streamed text and figures would land in its message and meter.
    expect(late.map((e) => keepLate(e, true))).toEqual([false, false, false, true, true, true, false, false]);
  });
});
