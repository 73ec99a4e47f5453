// Sub-agents live in their Agent card: the reducer runs the same reduction over the sub-agent's
// own events, the card sums it up in one line (what it is at, its calls, its cost), opens onto its
// whole conversation drawn like the main line, stops it, sits beside its parallel siblings, is
// opened from a permission request the sub-agent makes, and in a resumed session reads the
// transcript the engine saved.
import { afterEach, describe, expect, it, vi } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import type { Event } from "../bindings/Event";
import type { PastCall } from "../bindings/PastCall";
import type { SubagentTranscript } from "../bindings/SubagentTranscript";
import Conversation from "../lib/components/Conversation.svelte";
import { initialState, reduce, reduceAll } from "../lib/conversation/reducer";
import { subagentStatus } from "../lib/conversation/subagent";
import type { ConversationState } from "../lib/conversation/types";
import { completed, queued, request, usage } from "./fixtures";
import { liveSession, sessionInfo, type Handler } from "./live";
import { answered, assistantMessage, results, said, userMessage } from "./messages";
import { inputDelta, inputStarted, subagentStep, subagentTask } from "./subagentFixtures";

function run(events: Event[], start: ConversationState = initialState()): ConversationState {
  return events.reduce((s, e, i) => reduce(s, e, 1000 + i), start);
}

/** An Agent call `id` running sub-agent `agent`, which did `steps`. */
function agentCall(id: string, agent: string, steps: Event[], batch = 1, concurrent = false): Event[] {
  return [
    queued(id, batch, concurrent, "Agent", `Agent ${id}`),
    { type: "tool_started", tool_use_id: id },
    ...steps.map((e) => subagentStep(id, agent, e)),
  ];
}

/** A sub-agent that was briefed, said something, read a file and answered once. */
const readingSteps = (callId = "in1"): Event[] => [
  { type: "turn_started", turn: 1 },
  userMessage("Find the tests"),
  { type: "text_delta", text: "Looking in src." },
  assistantMessage("Looking in src."),
  queued(callId, 1, true, "Read", "Read src/lib.rs"),
  { type: "tool_started", tool_use_id: callId },
  completed(callId, { content: [{ type: "text", text: "pub fn lib() {}" }] }),
  usage({ session_cost_usd: 0.0123 }),
];

describe("reducer: a sub-agent's steps", () => {
  it("reduces the sub-agent's own events into its Agent call, and leaves the session's alone", () => {
    const s = run(agentCall("ag", "agent-1", readingSteps()));
    const sub = s.tools.get("ag")!.subagent!;
    expect(sub.agent_id).toBe("agent-1");
    expect(sub.state.items.map((i) => i.kind)).toEqual(["user", "assistant", "batch"]);
    expect(sub.state.items[1]).toMatchObject({ text: "Looking in src.", streaming: false });
    expect(sub.state.tools.get("in1")).toMatchObject({ status: "completed", summary: "Read src/lib.rs", content: [{ type: "text", text: "pub fn lib() {}" }] });
    expect(sub.state.cost.session_usd).toBe(0.0123);
    expect(sub.state.turn).toBe(1);
    // The session's own line, calls and figures are its own.
    expect(s.items).toHaveLength(1);
    expect(s.tools.has("in1")).toBe(false);
    expect(s.usage).toBeNull();
    expect(s.tools.get("ag")!.status).toBe("executing");
    expect(subagentStatus(sub.state)).toEqual({ line: "Read src/lib.rs", calls: 1, costUsd: 0.0123 });
  });

  it("gives the same state in one frame as event by event", () => {
    const events = agentCall("ag", "agent-1", [...readingSteps(), inputStarted("w", "Write"), inputDelta("w", "x", { path: "/p/x" })]);
    expect(reduceAll(initialState(), events, 1000)).toEqual(events.reduce((s, e) => reduce(s, e, 1000), initialState()));
  });

  it("says what the sub-agent is at: a call being written or run, else the last line it wrote", () => {
    let s = run(agentCall("ag", "agent-1", [userMessage("brief"), { type: "text_delta", text: "First.\nNow the config.\n" }]));
    expect(subagentStatus(s.tools.get("ag")!.subagent!.state).line).toBe("Now the config.");
    s = run([subagentStep("ag", "agent-1", inputStarted("w", "Write")), subagentStep("ag", "agent-1", inputDelta("w", "a", { path: "/p/c.toml" }))], s);
    expect(subagentStatus(s.tools.get("ag")!.subagent!.state)).toEqual({ line: "Write /p/c.toml", calls: 1, costUsd: null });
  });
});

const card = (id: string) => document.querySelector(`[data-tool-use-id="${id}"]`) as HTMLElement;

function openLive(events: Event[], handlers: Record<string, Handler> = {}) {
  const live = liveSession(sessionInfo(), handlers);
  for (const event of events) live.session.apply(event);
  render(Conversation, { session: live.session, onclose: vi.fn() });
  return live;
}

describe("an Agent card", () => {
  afterEach(() => vi.restoreAllMocks());

  it("sums up its sub-agent while collapsed and opens onto its conversation, drawn like the main line", async () => {
    const user = userEvent.setup();
    const live = openLive(agentCall("ag", "agent-1", readingSteps()));
    const agent = card("ag");
    expect(within(agent).getByTestId("subagent-status").textContent).toContain("Read src/lib.rs");
    expect(within(agent).getByTestId("subagent-calls").textContent).toBe("1 call");
    expect(within(agent).getByTestId("subagent-cost").textContent).toBe("$0.0123");
    expect(within(agent).queryByTestId("subagent-transcript")).toBeNull();

    await user.click(within(agent).getByTestId("subagent-toggle"));
    const transcript = within(agent).getByTestId("subagent-transcript");
    expect(within(transcript).getByTestId("assistant-text").textContent).toContain("Looking in src.");
    const inner = transcript.querySelector('[data-tool-use-id="in1"]') as HTMLElement;
    expect(inner.dataset.status).toBe("completed");
    // Its result opens as any card's does.
    await user.click(within(inner).getByTestId("tool-expand"));
    expect(inner.textContent).toContain("pub fn lib() {}");

    // New steps show as they come.
    live.session.apply(subagentStep("ag", "agent-1", queued("in2", 2, false, "Bash", "Bash cargo test")));
    live.session.apply(subagentStep("ag", "agent-1", { type: "tool_started", tool_use_id: "in2" }));
    await waitFor(() => expect(transcript.querySelector('[data-tool-use-id="in2"]')).not.toBeNull());
    expect(within(agent).getByTestId("subagent-calls").textContent).toBe("2 calls");
    expect(within(agent).getByTestId("subagent-status").textContent).toContain("Bash cargo test");
  });

  it("stops its running sub-agent with stop_task, and says why when that fails", async () => {
    const user = userEvent.setup();
    let fail = true;
    const live = openLive(agentCall("ag", "agent-1", readingSteps()), {
      stop_task: (args) => {
        if (fail) throw "no running task agent-1";
        return subagentTask(String(args.taskId), "ag", { status: "killed", ended_at_ms: 5 });
      },
    });
    live.session.applyTask(subagentTask("agent-1", "ag"));
    await user.click(await screen.findByTestId("subagent-stop"));
    expect(live.called("stop_task")).toEqual([{ sessionId: "s1", taskId: "agent-1" }]);
    expect((await screen.findByTestId("subagent-stop-error")).textContent).toContain("no running task agent-1");

    fail = false;
    await user.click(screen.getByTestId("subagent-stop"));
    expect(live.called("stop_task")).toHaveLength(2);
    // Stopped: the turn goes on, the card offers no Stop any more.
    await waitFor(() => expect(screen.queryByTestId("subagent-stop")).toBeNull());
    expect(screen.queryByTestId("subagent-stop-error")).toBeNull();
    expect(card("ag").dataset.status).toBe("executing");
  });

  it("lays out parallel sub-agents side by side, each opening on its own", async () => {
    const user = userEvent.setup();
    openLive([
      queued("a1", 3, true, "Agent", "Agent tests"),
      queued("a2", 3, true, "Agent", "Agent docs"),
      { type: "tool_started", tool_use_id: "a1" },
      { type: "tool_started", tool_use_id: "a2" },
      ...readingSteps("r1").map((e) => subagentStep("a1", "agent-1", e)),
      ...readingSteps("r2").map((e) => subagentStep("a2", "agent-2", e)),
    ]);
    const grid = screen.getByTestId("batch-agents");
    expect(grid.closest("[data-testid=batch]")).not.toBeNull();
    const toggles = within(grid).getAllByTestId("subagent-toggle");
    expect(toggles).toHaveLength(2);
    await user.click(toggles[1]!);
    expect(within(card("a2")).getByTestId("subagent-transcript")).toBeTruthy();
    expect(within(card("a1")).queryByTestId("subagent-transcript")).toBeNull();
  });

  it("is opened and scrolled to from a permission request its sub-agent makes", async () => {
    const user = userEvent.setup();
    const scrolled = vi.spyOn(Element.prototype, "scrollIntoView");
    const live = openLive([
      ...agentCall("ag", "agent-1", [...readingSteps(), queued("in-b", 2, false, "Bash", "Bash rm -rf build"), { type: "tool_started", tool_use_id: "in-b" }]),
      { type: "permission_requested", request: request({ id: "r1", tool_name: "Bash", tool_use_id: "in-b", agent_label: "Sub-agent: Find the tests", agent_call_id: "ag" }) },
    ]);
    const dialog = await screen.findByTestId("permission-dialog");
    expect(within(dialog).getByTestId("agent-label").textContent).toBe("Sub-agent: Find the tests");
    // The Agent card says its sub-agent waits for the user.
    expect(within(card("ag")).getAllByTestId("tool-status")[0]!.textContent).toBe("needs approval");
    expect(within(card("ag")).queryByTestId("subagent-transcript")).toBeNull();

    scrolled.mockClear();
    await user.click(within(dialog).getByTestId("permission-subagent-link"));
    const transcript = within(card("ag")).getByTestId("subagent-transcript");
    const asked = transcript.querySelector('[data-tool-use-id="in-b"]') as HTMLElement;
    expect(within(asked).getByTestId("tool-status").textContent).toBe("needs approval");
    await waitFor(() => expect(scrolled.mock.contexts).toContain(card("ag")));
    expect(live.called("answer_permission")).toHaveLength(0);
  });

  it("offers no link for the main agent's own requests", async () => {
    openLive([queued("x", 1, false, "Bash"), { type: "permission_requested", request: request({ id: "r1", tool_name: "Bash", tool_use_id: "x" }) }]);
    await screen.findByTestId("permission-dialog");
    expect(screen.queryByTestId("permission-subagent-link")).toBeNull();
  });
});

describe("a resumed session's Agent card", () => {
  const pastAgent: PastCall = {
    tool_use_id: "ag",
    tool_name: "Agent",
    kind: { kind: "agent" },
    display_name: "Agent",
    summary: "Agent Find the tests",
    batch_index: 1,
    concurrent: false,
    denied: false,
    error: null,
    destructive: false,
    persisted_path: null,
    persisted_bytes: null,
    changed_files: [],
  };
  const transcript: SubagentTranscript = {
    agent_id: "agent-9",
    history: [said("Find the tests"), answered("Looking.", [["r1", "Read", { file_path: "/p/tests/a.rs" }]]), results(["r1", "fn a() {}"]), answered("Found them in tests/.")],
    past_calls: [{ ...pastAgent, tool_use_id: "r1", tool_name: "Read", kind: { kind: "read" }, display_name: "Read", summary: "Read tests/a.rs" }],
  };

  function resumed(handler: Handler) {
    const info = sessionInfo({
      history: [said("go"), answered("", [["ag", "Agent", { description: "Find the tests", prompt: "Find them" }]]), results(["ag", "Found them in tests/."])],
      past_calls: [pastAgent],
    });
    const live = liveSession(info, { subagent_transcript: handler });
    // The task log survives restarts: it names the sub-agent.
    live.session.applyTask(subagentTask("agent-9", "ag", { status: "completed", ended_at_ms: 9 }));
    render(Conversation, { session: live.session, onclose: vi.fn() });
    return live;
  }

  it("reads the saved transcript once, on first open, and shows it rebuilt", async () => {
    const user = userEvent.setup();
    let answer!: (t: SubagentTranscript) => void;
    const live = resumed(() => new Promise((resolve) => (answer = resolve)));
    expect(live.called("subagent_transcript")).toHaveLength(0);
    await user.click(within(card("ag")).getByTestId("subagent-toggle"));
    expect(await within(card("ag")).findByTestId("subagent-loading")).toBeTruthy();
    expect(live.called("subagent_transcript")).toEqual([{ sessionId: "s1", agentId: "agent-9" }]);
    answer(transcript);
    const shown = await within(card("ag")).findByTestId("subagent-transcript");
    expect(shown.querySelector('[data-tool-use-id="r1"]')?.getAttribute("data-status")).toBe("completed");
    expect(within(shown).getByText("Read tests/a.rs")).toBeTruthy();
    expect(shown.textContent).toContain("Found them in tests/.");
    expect(within(shown).getAllByTestId("user-text")[0]!.textContent).toBe("Find the tests");

    await user.click(within(card("ag")).getByTestId("subagent-toggle"));
    await user.click(within(card("ag")).getByTestId("subagent-toggle"));
    expect(within(card("ag")).getByTestId("subagent-transcript")).toBeTruthy();
    expect(live.called("subagent_transcript")).toHaveLength(1);
  });

  it("says when the transcript cannot be read", async () => {
    const user = userEvent.setup();
    resumed(() => {
      throw "no transcript for agent-9";
    });
    await user.click(within(card("ag")).getByTestId("subagent-toggle"));
    const error = await within(card("ag")).findByTestId("subagent-load-error");
    expect(error.textContent).toContain("no transcript for agent-9");
    expect(within(card("ag")).queryByTestId("subagent-transcript")).toBeNull();
  });
});
