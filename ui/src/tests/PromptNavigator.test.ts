// The prompt navigator: a session's prompts in order with when they were sent, how each turn ended
// (the engine's outcome, or a live turn's end) and how long it took; a click goes to the prompt,
// Alt+↑ / Alt+↓ go to the previous / next one from what is on screen.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import Conversation from "../lib/components/Conversation.svelte";
import { fromHistory, reduceAll, rebuild } from "../lib/conversation/reducer";
import { navPrompts, outcomeBadge } from "../lib/promptNav";
import { promptInfo } from "./fixtures";
import { liveSession, sessionInfo } from "./live";
import { answered, assistantMessage, said, userMessage } from "./messages";

const NOW = Date.now();
/** Sent `ago` minutes before now; its turn took 75 s when it ended. */
const sent = (ago: number) => ({ time_ms: NOW - ago * 60_000, ended_ms: NOW - ago * 60_000 + 75_000 });

const history = [
  said("read the parser\nand tell me about it"),
  answered("It is a Pratt parser."),
  said("run the tests"),
  answered("They fail."),
  said("keep going"),
  answered("Stopped at the limit."),
  said("never mind"),
  answered(""),
  said("an old prompt"),
  answered("ok"),
];
// Prompt 1 was compacted away; 6 is from before turn ends were recorded.
const prompts = [
  promptInfo(1, "compacted away", null, sent(30)),
  promptInfo(2, "read the parser\nand tell me about it", 0, sent(20)),
  promptInfo(3, "run the tests", 2, { ...sent(15), outcome: "error" }),
  promptInfo(4, "keep going", 4, { ...sent(10), outcome: "max_turns" }),
  promptInfo(5, "never mind", 6, { ...sent(5), outcome: "aborted" }),
  promptInfo(6, "an old prompt", 8, { ...sent(2), outcome: null, ended_ms: null }),
];

function setup(info = sessionInfo({ history, prompts })) {
  const live = liveSession(info);
  const user = userEvent.setup();
  render(Conversation, { session: live.session, onclose: vi.fn() });
  return { live, user };
}

const navigator = () => screen.getByTestId("prompt-navigator");
const navItems = () => within(navigator()).getAllByTestId("prompt-nav-item");
const navItem = (turn: number) => navItems().find((i) => i.dataset.turn === String(turn))!;
const promptMessage = (turn: number) => document.querySelector<HTMLElement>(`[data-testid=user-message][data-turn="${turn}"]`)!;

/** Elements scrolled into view, in order (jsdom has no layout). */
const scrolled: Element[] = [];
beforeEach(() => {
  scrolled.length = 0;
  vi.spyOn(Element.prototype, "scrollIntoView").mockImplementation(function (this: Element) {
    scrolled.push(this);
  });
});
afterEach(() => vi.restoreAllMocks());

/** The last prompt scrolled to, by its number. */
const lastPromptScrolled = () => {
  const prompts = scrolled.filter((e) => e.matches("[data-testid=user-message]"));
  return prompts.at(-1) ? Number((prompts.at(-1) as HTMLElement).dataset.turn) : null;
};

describe("the prompt navigator", () => {
  it("lists the prompts in order with their first line, when they were sent, how their turn ended and how long it took", async () => {
    const { user } = setup();
    expect(screen.queryByTestId("prompt-navigator")).toBeNull();
    const toggle = screen.getByTestId("prompts-toggle");
    expect(toggle.title).toContain("Ctrl+Shift+P");
    expect(toggle.title).toContain("Alt+↑ / Alt+↓");
    await user.click(toggle);
    expect(toggle.getAttribute("aria-pressed")).toBe("true");

    expect(within(navigator()).getByTestId("prompt-navigator-keys").textContent).toBe("Alt+↑ / Alt+↓ previous / next prompt");
    expect(navItems().map((i) => [i.dataset.turn, within(i).getByTestId("prompt-nav-text").textContent])).toEqual([
      ["1", "compacted away"],
      ["2", "read the parser"],
      ["3", "run the tests"],
      ["4", "keep going"],
      ["5", "never mind"],
      ["6", "an old prompt"],
    ]);
    const outcomes = navItems().map((i) => within(i).getByTestId("prompt-nav-outcome"));
    expect(outcomes.map((o) => [o.textContent, o.dataset.outcome])).toEqual([
      ["done", "end_turn"],
      ["done", "end_turn"],
      ["failed", "error"],
      ["hit the limit", "max_turns"],
      ["stopped", "aborted"],
      ["—", "none"],
    ]);
    expect(within(navItem(3)).getByTestId("prompt-nav-duration").textContent).toBe("1m 15s");
    expect(within(navItem(6)).queryByTestId("prompt-nav-duration")).toBeNull();
    const time = within(navItem(4)).getByTestId("prompt-nav-time");
    expect(time.textContent).toBe("10 min ago");
    expect(time.title).toBe(new Date(prompts[3]!.time_ms).toLocaleString());
    // A prompt compacted away is listed, with nowhere to go.
    expect((navItem(1) as HTMLButtonElement).disabled).toBe(true);
    expect((navItem(2) as HTMLButtonElement).disabled).toBe(false);

    await user.click(within(navigator()).getByTestId("prompt-navigator-close"));
    expect(screen.queryByTestId("prompt-navigator")).toBeNull();
  });

  it("opens and closes with Ctrl+Shift+P", async () => {
    const { user } = setup();
    await user.click(screen.getByTestId("prompt-input"));
    await user.keyboard("{Control>}{Shift>}P{/Shift}{/Control}");
    expect(screen.getByTestId("prompt-navigator")).toBeTruthy();
    await user.keyboard("{Control>}{Shift>}P{/Shift}{/Control}");
    expect(screen.queryByTestId("prompt-navigator")).toBeNull();
  });

  it("goes to a prompt on a click: its message is scrolled to the top, lit, and marked current", async () => {
    const { user } = setup();
    await user.click(screen.getByTestId("prompts-toggle"));
    await user.click(navItem(3));
    await waitFor(() => expect(scrolled).toContain(promptMessage(3)));
    expect(promptMessage(3).classList.contains("flash")).toBe(true);
    await waitFor(() => expect(navItem(3).getAttribute("aria-current")).toBe("true"));
  });

  it("goes to the previous and next prompt with Alt+↑ / Alt+↓, outside text fields and from an empty prompt box", async () => {
    const { user } = setup();
    await user.click(screen.getByTestId("prompts-toggle"));
    await user.click(navItem(3));
    await waitFor(() => expect(lastPromptScrolled()).toBe(3));

    await user.keyboard("{Alt>}{ArrowDown}{/Alt}");
    await waitFor(() => expect(lastPromptScrolled()).toBe(4));
    await user.keyboard("{Alt>}{ArrowDown}{/Alt}");
    await waitFor(() => expect(lastPromptScrolled()).toBe(5));
    await user.keyboard("{Alt>}{ArrowUp}{/Alt}");
    await waitFor(() => expect(lastPromptScrolled()).toBe(4));
    await waitFor(() => expect(navItem(4).getAttribute("aria-current")).toBe("true"));

    // From the prompt box while it is empty…
    const box = screen.getByTestId("prompt-input") as HTMLTextAreaElement;
    await user.click(box);
    await user.keyboard("{Alt>}{ArrowUp}{/Alt}");
    await waitFor(() => expect(lastPromptScrolled()).toBe(3));
    await user.keyboard("{Alt>}{ArrowUp}{/Alt}");
    await waitFor(() => expect(lastPromptScrolled()).toBe(2));
    // …the first prompt in the conversation has none before it (1 was compacted away).
    const count = scrolled.length;
    await user.keyboard("{Alt>}{ArrowUp}{/Alt}");
    await new Promise((r) => setTimeout(r, 30));
    expect(scrolled.length).toBe(count);

    // With text in the box the keys are the box's.
    await user.type(box, "half-typed");
    await user.keyboard("{Alt>}{ArrowDown}{/Alt}");
    await new Promise((r) => setTimeout(r, 30));
    expect(scrolled.length).toBe(count);
    expect(box.value).toBe("half-typed");
  });

  it("shows a live turn as running, then how it ended", async () => {
    const { live, user } = setup(sessionInfo());
    await user.click(screen.getByTestId("prompts-toggle"));
    expect(within(navigator()).getByTestId("prompt-navigator-empty")).toBeTruthy();
    await user.type(screen.getByTestId("prompt-input"), "fix the lexer{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    const turn = live.turns[0]!;
    turn.send({ type: "turn_started", turn: 1 });
    turn.send(userMessage("fix the lexer"));
    await waitFor(() => expect(navItems()).toHaveLength(1));
    expect(within(navItem(1)).getByTestId("prompt-nav-text").textContent).toBe("fix the lexer");
    expect(within(navItem(1)).getByTestId("prompt-nav-outcome").textContent).toBe("running");
    expect(within(navItem(1)).getByTestId("prompt-nav-time").textContent).toBe("just now");

    turn.send(assistantMessage("Fixed."));
    turn.finish("end_turn");
    await waitFor(() => expect(within(navItem(1)).getByTestId("prompt-nav-outcome").textContent).toBe("done"));
    expect(within(navItem(1)).getByTestId("prompt-nav-outcome").dataset.outcome).toBe("end_turn");
    expect(within(navItem(1)).getByTestId("prompt-nav-duration")).toBeTruthy();
    // It can be gone to like any other.
    await user.click(navItem(1));
    await waitFor(() => expect(scrolled).toContain(promptMessage(1)));
  });
});

describe("the prompts in the conversation's state", () => {
  it("numbers a live prompt at turn_started, takes its text from the message after it and its outcome from the turn's end", () => {
    const before = fromHistory([said("one")], "default", [], [promptInfo(1, "one", 0)]);
    const state = reduceAll(
      before,
      [{ type: "turn_started", turn: 2 }, userMessage("two"), assistantMessage("ok"), { type: "turn_ended", reason: "max_tokens" }],
      5_000,
    );
    expect(state.prompts).toEqual([promptInfo(1, "one", 0), { turn: 2, text: "two", time_ms: 5_000, message_index: null, outcome: "max_tokens", ended_ms: 5_000 }]);
    // A late repeat of the end changes nothing; nor does an end without a turn that started.
    const again = reduceAll(state, [{ type: "turn_ended", reason: "error" }], 6_000);
    expect(again.prompts).toEqual(state.prompts);
    // Rebuilt (a compaction, a rewind): the engine's list is the one kept.
    const engine = [promptInfo(2, "two", 0, { outcome: "max_tokens" })];
    expect(rebuild(state, [said("two")], [], engine).prompts).toEqual(engine);
  });

  it("names each outcome in a word, and a turn that runs", () => {
    expect(outcomeBadge("end_turn", false).label).toBe("done");
    expect(outcomeBadge("interrupted", false).label).toBe("stopped");
    expect(outcomeBadge("stopped_by_hook", false).label).toBe("stopped");
    expect(outcomeBadge("max_tokens", false).label).toBe("hit the limit");
    expect(outcomeBadge("refusal", false).label).toBe("failed");
    expect(outcomeBadge(null, true).label).toBe("running");
    expect(outcomeBadge(null, false).label).toBe("—");
    // Only the latest prompt runs.
    const rows = navPrompts([promptInfo(1, "a", 0, { outcome: null, ended_ms: null }), promptInfo(2, "b", 2, { outcome: null, ended_ms: null })], [], true);
    expect(rows.map((r) => r.badge.label)).toEqual(["—", "running"]);
  });
});
