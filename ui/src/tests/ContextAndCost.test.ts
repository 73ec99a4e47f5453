// The header's context meter, session and turn costs, and the Compact button: figures from the
// engine (SessionInfo at start, then each `usage` event), and the conversation rebuilt from the
// outcome of a compaction, whether the button or `/compact` asked for it.
import { describe, expect, it, vi } from "vitest";
import { cleanup, render, screen, waitFor } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import type { CompactOutcome } from "../bindings/CompactOutcome";
import type { PromptInfo } from "../bindings/PromptInfo";
import type { SessionInfo } from "../bindings/SessionInfo";
import Conversation from "../lib/components/Conversation.svelte";
import { usage } from "./fixtures";
import { liveSession, sessionInfo, type Handler } from "./live";
import { answered, said } from "./messages";

const prompt = (turn: number, text: string, message_index: number | null): PromptInfo => ({ turn, text, time_ms: 1000 * turn, message_index, outcome: null, ended_ms: null });

const resumed = sessionInfo({
  history: [said("first"), answered("one"), said("second"), answered("two")],
  prompts: [prompt(1, "first", 0), prompt(2, "second", 2)],
  context_tokens: 150_000,
  context_window: 200_000,
  session_cost_usd: 1.5,
});

const SUMMARY = "This session continues from an earlier conversation that was compacted. Summary: two prompts.";
const compacted: CompactOutcome = {
  history: [said(SUMMARY), answered("two")],
  past_calls: [],
  prompts: [prompt(1, "first", null), prompt(2, "second", null)],
};

function setup(info: SessionInfo = resumed, handlers: Record<string, Handler> = {}) {
  const live = liveSession(info, { compact_session: () => compacted, ...handlers });
  const user = userEvent.setup();
  render(Conversation, { session: live.session, onclose: vi.fn() });
  const box = screen.getByTestId("prompt-input") as HTMLTextAreaElement;
  return { live, user, box };
}

const meter = () => screen.getByTestId("context-meter");
const meterState = () => {
  const m = meter();
  return { used: m.dataset.used, window: m.dataset.window, level: m.dataset.level, text: m.textContent?.trim(), title: m.title };
};
const text = (testId: string) => screen.queryByTestId(testId)?.textContent?.trim() ?? null;
const userTexts = () => screen.queryAllByTestId("user-text").map((u) => u.textContent);
const notices = () => screen.queryAllByTestId("notice").map((n) => n.textContent);
const compactButton = () => screen.getByTestId("compact-button") as HTMLButtonElement;

describe("context meter", () => {
  it("starts from the resumed session's figures, with its cost", () => {
    setup();
    expect(meterState()).toEqual({
      used: "150000",
      window: "200000",
      level: "high",
      text: "75% of 200k context",
      title: "150,000 of 200,000 tokens: the latest reply's whole input (cached or not) and output",
    });
    expect(text("session-cost")).toBe("session $1.50");
    expect(text("turn-cost")).toBeNull(); // no turn ran in this window yet
    expect(text("usage-line")).toBeNull();
  });

  it("follows each response's usage and changes colour past 70% and 90%", async () => {
    const { live, user, box } = setup(sessionInfo());
    expect(meterState()).toMatchObject({ used: "0", window: "200000", level: "normal", text: "0% of 200k context" });
    await user.type(box, "go{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    const turn = live.turns[0]!;
    for (const [tokens, level, shown] of [
      [60_000, "normal", "30%"],
      [140_001, "high", "70%"],
      [181_000, "critical", "91%"],
    ] as const) {
      turn.send(usage({ context_tokens: tokens }));
      await waitFor(() => expect(meterState()).toMatchObject({ used: String(tokens), window: "200000", level, text: `${shown} of 200k context` }));
    }
    turn.send(usage({ context_tokens: 90_000, context_window: 1_000_000 }));
    await waitFor(() => expect(meterState()).toMatchObject({ used: "90000", window: "1000000", level: "normal", text: "9% of 1M context" }));
    // The token counts stay in the usage line, summed over this window's responses.
    expect(text("usage-line")).toBe("in 400 · out 40 · cache read 0 · cache write 0");
  });
});

describe("cost", () => {
  it("shows the session's cost and the latest turn's: the total at its end minus at its start", async () => {
    const { live, user, box } = setup();
    await user.type(box, "third{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    live.turns[0]!.send({ type: "turn_started", turn: 3 });
    live.turns[0]!.send(usage({ session_cost_usd: 1.5123 }));
    await waitFor(() => expect(text("turn-cost")).toBe("this turn $0.0123"));
    expect(text("session-cost")).toBe("session $1.51");
    live.turns[0]!.send(usage({ session_cost_usd: 1.5234 }));
    live.turns[0]!.send({ type: "turn_ended", reason: "end_turn" });
    live.turns[0]!.finish();
    await waitFor(() => expect(text("turn-cost")).toBe("last turn $0.0234"));

    await user.type(box, "fourth{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(2));
    live.turns[1]!.send({ type: "turn_started", turn: 4 });
    live.turns[1]!.send(usage({ session_cost_usd: 1.6 }));
    await waitFor(() => expect(text("turn-cost")).toBe("this turn $0.0766"));
    expect(text("session-cost")).toBe("session $1.60");
  });

  it("counts a fresh session's first turn from nothing", async () => {
    const { live, user, box } = setup(sessionInfo());
    expect(text("session-cost")).toBe("session $0.00");
    await user.type(box, "go{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    live.turns[0]!.send({ type: "turn_started", turn: 1 });
    live.turns[0]!.send(usage({ session_cost_usd: 0.0042 }));
    await waitFor(() => expect(text("turn-cost")).toBe("this turn $0.0042"));
    expect(text("session-cost")).toBe("session $0.0042");
  });

  it("says the cost is unknown when a resumed session's model has no known price", () => {
    setup(sessionInfo({ context_tokens: 1000, session_cost_usd: null }));
    expect(text("session-cost")).toBe("cost unknown for this model");
    expect(text("turn-cost")).toBeNull();
  });

  it("says the cost is unknown once a response came without a price", async () => {
    const { live, user, box } = setup(sessionInfo());
    await user.type(box, "go{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    live.turns[0]!.send({ type: "turn_started", turn: 1 });
    live.turns[0]!.send(usage({ session_cost_usd: null }));
    await waitFor(() => expect(text("session-cost")).toBe("cost unknown for this model"));
    expect(text("turn-cost")).toBeNull();
  });
});

describe("cache reads", () => {
  it("shows the resumed session's cache reads and what they saved, then each response's totals", async () => {
    const { live, user, box } = setup(sessionInfo({ session_cost_usd: 1.23, session_cache_read_tokens: 1_200_000, session_cache_saved_usd: 0.45 }));
    expect(text("usage-cache")).toBe("cache 1.2M read, saved $0.4500");
    expect(text("session-cost")).toBe("session $1.23");
    await user.type(box, "go{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    live.turns[0]!.send(usage({ session_cost_usd: 1.5, session_cache_read_tokens: 1_250_000, session_cache_saved_usd: 1.5 }));
    await waitFor(() => expect(text("usage-cache")).toBe("cache 1.25M read, saved $1.50"));
    // A model without a known price: the reads still count, the savings are not said.
    live.turns[0]!.send(usage({ session_cost_usd: null, session_cache_read_tokens: 1_300_000, session_cache_saved_usd: null }));
    await waitFor(() => expect(text("usage-cache")).toBe("cache 1.3M read"));
  });

  it("says nothing about the cache before anything was read from it, and keeps it through a compaction", async () => {
    setup(sessionInfo({ history: resumed.history, prompts: resumed.prompts, session_cache_saved_usd: 0 }));
    expect(text("usage-cache")).toBeNull();
    cleanup();
    const { user } = setup({ ...resumed, session_cache_read_tokens: 40_000, session_cache_saved_usd: 0.012 });
    expect(text("usage-cache")).toBe("cache 40k read, saved $0.0120");
    await user.click(compactButton());
    await waitFor(() => expect(notices().at(-1)).toBe("Conversation compacted: the model now sees a summary of it."));
    expect(text("usage-cache")).toBe("cache 40k read, saved $0.0120");
  });
});

describe("compacting", () => {
  it("the Compact button compacts, rebuilds the conversation from the outcome and marks the meter until the next reply", async () => {
    let answer: (outcome: CompactOutcome) => void = () => {};
    const { live, user, box } = setup(resumed, { compact_session: () => new Promise<CompactOutcome>((r) => (answer = r)) });
    expect(userTexts()).toEqual(["first", "second"]);
    await user.click(compactButton());
    expect(live.called("compact_session")).toEqual([{ sessionId: "s1", instructions: null }]);
    await waitFor(() => expect(compactButton().disabled).toBe(true));
    expect(text("turn-status")).toBe("compacting");
    expect(compactButton().textContent?.trim()).toBe("Compacting…");

    // A prompt typed meanwhile waits for the compaction.
    await user.type(box, "third{Enter}");
    expect(screen.getAllByTestId("queued-prompt").map((q) => q.textContent)).toEqual([expect.stringContaining("third")]);
    expect(live.turns).toHaveLength(0);

    answer(compacted);
    await waitFor(() => expect(userTexts()).toEqual([SUMMARY]));
    expect(screen.getAllByTestId("assistant-text").map((a) => a.textContent?.trim())).toEqual(["two"]);
    expect(notices().at(-1)).toBe("Conversation compacted: the model now sees a summary of it.");
    expect(meterState()).toEqual({
      used: "150000",
      window: "200000",
      level: "high",
      text: "75% of 200k context · compacted — updates with the next reply",
      title: "150,000 of 200,000 tokens: the latest reply's whole input (cached or not) and output; compacted — updates with the next reply",
    });
    expect(meter().dataset.compacted).toBe("true");
    expect(text("session-cost")).toBe("session $1.50");

    // The queued prompt goes out now; the Compact button waits for the turn.
    await waitFor(() => expect(live.turns.map((t) => t.prompt)).toEqual(["third"]));
    expect(compactButton().disabled).toBe(true);
    live.turns[0]!.send(usage({ context_tokens: 20_000, session_cost_usd: 1.51 }));
    await waitFor(() => expect(meterState()).toMatchObject({ used: "20000", level: "normal", text: "10% of 200k context" }));
    expect(meter().dataset.compacted).toBe("false");
    live.turns[0]!.finish();
    await waitFor(() => expect(compactButton().disabled).toBe(false));
  });

  it("is disabled while a turn runs", async () => {
    const { live, user, box } = setup();
    expect(compactButton().disabled).toBe(false);
    await user.type(box, "go{Enter}");
    await waitFor(() => expect(compactButton().disabled).toBe(true));
    await user.click(compactButton());
    expect(live.called("compact_session")).toEqual([]);
    live.turns[0]!.finish();
    await waitFor(() => expect(compactButton().disabled).toBe(false));
  });

  it("shows the engine's refusal and leaves the conversation and meter as they were", async () => {
    const { user } = setup(resumed, {
      compact_session: () => {
        throw "nothing to compact yet";
      },
    });
    await user.click(compactButton());
    await waitFor(() => expect(notices().at(-1)).toBe("Could not compact the conversation: nothing to compact yet"));
    expect(userTexts()).toEqual(["first", "second"]);
    expect(meter().dataset.compacted).toBe("false");
    expect(compactButton().disabled).toBe(false);
  });

  it("/compact rebuilds the conversation from the outcome too, with its instructions", async () => {
    const { live, user, box } = setup();
    await user.type(box, "/compact keep the plan{Enter}");
    await waitFor(() => expect(live.called("compact_session")).toEqual([{ sessionId: "s1", instructions: "keep the plan" }]));
    await waitFor(() => expect(userTexts()).toEqual([SUMMARY]));
    expect(notices().at(-1)).toBe("Conversation compacted: the model now sees a summary of it.");
    expect(meterState().text).toBe("75% of 200k context · compacted — updates with the next reply");
    expect(live.turns).toHaveLength(0);
  });
});
