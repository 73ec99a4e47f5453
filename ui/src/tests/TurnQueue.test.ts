// Turns one after another: each turn's events come on its own channel, and the last ones may
// arrive after its command resolved. They must never be taken for the next turn's, the next
// queued prompt waits for them, and a refused prompt neither ends a running turn nor drains the
// queue. A turn stopped at the model-call limit offers to continue.
import { describe, expect, it, vi } from "vitest";
import { render, screen, waitFor } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import Conversation from "../lib/components/Conversation.svelte";
import { MODEL_CALL_LIMIT_NOTICE } from "../lib/conversation/reducer";
import { bashRequest, queued } from "./fixtures";
import { liveSession, type Live } from "./live";

function setup() {
  const live = liveSession();
  const user = userEvent.setup();
  render(Conversation, { session: live.session, onclose: vi.fn() });
  const box = screen.getByTestId("prompt-input") as HTMLTextAreaElement;
  return { live, user, box };
}

const status = () => screen.getByTestId("turn-status").textContent?.trim();
const queuedTexts = () => screen.queryAllByTestId("queued-prompt").map((q) => q.querySelector(".q-text")?.textContent);
const notices = () => screen.queryAllByTestId("notice").map((n) => n.textContent);
const errors = () => screen.queryAllByRole("alert").filter((a) => a.dataset.testid === "notice");
const sent = (live: Live) => live.turns.map((t) => t.prompt);
const settle = () => new Promise((r) => setTimeout(r, 100));

describe("queued prompts", () => {
  it("starts the next prompt only once the last turn's turn_ended came in, even after its command resolved", async () => {
    const { live, user, box } = setup();
    await user.type(box, "one{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    await user.type(box, "two{Enter}");

    live.turns[0]!.resolve("max_turns");
    await settle();
    expect(sent(live)).toEqual(["one"]);
    expect(status()).toBe("running");

    live.turns[0]!.send({ type: "turn_ended", reason: "max_turns" });
    await waitFor(() => expect(sent(live)).toEqual(["one", "two"]));
    expect(status()).toBe("running");
    // The limit's notice came in before the next prompt went out.
    expect(notices()).toContainEqual(expect.stringContaining(MODEL_CALL_LIMIT_NOTICE));
  });

  it("a late turn_ended of the previous turn does not make the next one idle or drop its permission request", async () => {
    const { live, user, box } = setup();
    await user.type(box, "one{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    await user.type(box, "two{Enter}");

    // Turn 1's command resolves but its last events are lost for longer than the store waits.
    live.turns[0]!.resolve("max_turns");
    await waitFor(() => expect(live.turns).toHaveLength(2), { timeout: 3000 });
    const second = live.turns[1]!;
    second.send({ type: "turn_started", turn: 2 });
    second.send(queued("tu-r-bash", 1, false, "Bash", "Bash git status && rm -rf build"));
    second.send({ type: "permission_requested", request: bashRequest() });
    await screen.findByTestId("permission-dialog");
    // The lost end was settled from the command's answer.
    expect(notices().filter((n) => n?.startsWith(MODEL_CALL_LIMIT_NOTICE))).toHaveLength(1);

    live.turns[0]!.send({ type: "notice", message: "late words of turn 1" });
    live.turns[0]!.send({ type: "turn_ended", reason: "max_turns" });
    await waitFor(() => expect(notices()).toContain("late words of turn 1"));
    expect(status()).toBe("running");
    expect(live.session.state.running).toBe(true);
    expect(live.session.waitingApprovals).toBe(1);
    expect(screen.getByTestId("permission-dialog")).toBeTruthy();
    expect(notices().filter((n) => n?.startsWith(MODEL_CALL_LIMIT_NOTICE))).toHaveLength(1);

    // A prompt typed now is queued, not sent into the engine's running turn.
    live.session.submit("three");
    expect(sent(live)).toEqual(["one", "two"]);
    await waitFor(() => expect(queuedTexts()).toEqual(["three"]));

    second.finish();
    await waitFor(() => expect(sent(live)).toEqual(["one", "two", "three"]));
    live.turns[2]!.finish();
    await waitFor(() => expect(status()).toBe("idle"));
    expect(errors()).toEqual([]);
  });

  it("runs three prompts queued behind a turn stopped at the model-call limit (and one typed meanwhile), in order, one at a time", async () => {
    const { live, user, box } = setup();
    await user.type(box, "one{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    for (const text of ["two", "three", "four"]) await user.type(box, `${text}{Enter}`);
    expect(queuedTexts()).toEqual(["two", "three", "four"]);

    // As reported: the turn's end arrives a while after its command resolved.
    live.turns[0]!.resolve("max_turns");
    await settle();
    live.turns[0]!.send({ type: "turn_ended", reason: "max_turns" });
    for (const [i, next] of ["two", "three", "four", "five"].entries()) {
      await waitFor(() => expect(sent(live)).toHaveLength(i + 2));
      expect(sent(live).at(-1)).toBe(next);
      expect(status()).toBe("running");
      // What is typed while it runs is queued behind the rest, not sent into the running turn.
      if (next === "two") await user.type(box, "five{Enter}");
      await settle();
      expect(live.turns).toHaveLength(i + 2); // nothing else goes out while it runs
      live.turns[i + 1]!.finish();
    }
    await waitFor(() => expect(status()).toBe("idle"));
    expect(sent(live)).toEqual(["one", "two", "three", "four", "five"]);
    expect(live.turns.map((t) => t.othersOpen)).toEqual([0, 0, 0, 0, 0]);
    expect(queuedTexts()).toEqual([]);
    expect(errors()).toEqual([]);
  });

  it("a refused prompt goes back to the composer and leaves the queue waiting, not sent", async () => {
    const { live, user, box } = setup();
    await user.type(box, "one{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    await user.type(box, "two{Enter}");
    await user.type(box, "three{Enter}");

    live.turns[0]!.finish();
    await waitFor(() => expect(sent(live)).toEqual(["one", "two"]));
    live.turns[1]!.reject("a turn is already running in this session; wait for it or abort it");
    await waitFor(() => expect(box.value).toBe("two"));
    expect(screen.getByText("Not sent: a turn is already running in this session; wait for it or abort it")).toBeTruthy();
    await settle();
    expect(sent(live)).toEqual(["one", "two"]);
    expect(queuedTexts()).toEqual(["three"]);
    expect(status()).toBe("idle");
    expect(errors().map((e) => e.textContent)).toEqual(["a turn is already running in this session; wait for it or abort it"]);
    expect(notices().filter((n) => n === "The queued prompts wait: send them with Send now.")).toHaveLength(1);

    await user.click(screen.getByTestId("queued-send-now"));
    await waitFor(() => expect(sent(live)).toEqual(["one", "two", "three"]));
    expect(queuedTexts()).toEqual([]);
    expect(box.value).toBe("two");
  });

  it("a refused prompt with nothing queued adds no word about the queue", async () => {
    const { live, user, box } = setup();
    await user.type(box, "one{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    live.turns[0]!.reject("no such session");
    await waitFor(() => expect(box.value).toBe("one"));
    expect(status()).toBe("idle");
    expect(notices()).toEqual(["no such session"]);
  });
});

describe("the model-call limit", () => {
  it("says the turn stopped at the limit, and Continue sends \"continue\" once", async () => {
    const { live, user, box } = setup();
    await user.type(box, "refactor it all{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    live.turns[0]!.finish("max_turns");
    await waitFor(() => expect(status()).toBe("idle"));
    const notice = screen.getAllByTestId("notice").at(-1)!;
    expect(notice.textContent).toBe(`${MODEL_CALL_LIMIT_NOTICE}Continue`);

    await user.click(screen.getByTestId("continue-turn"));
    await waitFor(() => expect(sent(live)).toEqual(["refactor it all", "continue"]));
    // The offer was taken: it cannot be sent twice.
    expect(screen.queryByTestId("continue-turn")).toBeNull();
    expect(notices().at(-1)).toBe(MODEL_CALL_LIMIT_NOTICE);

    // Stopped again: only the latest notice offers to continue.
    live.turns[1]!.finish("max_turns");
    await waitFor(() => expect(screen.getAllByTestId("continue-turn")).toHaveLength(1));
    expect(notices().filter((n) => n?.startsWith(MODEL_CALL_LIMIT_NOTICE))).toHaveLength(2);
    expect(screen.getAllByTestId("notice").at(-1)!.querySelector("[data-testid=continue-turn]")).toBeTruthy();
  });

  it("queues \"continue\" while a turn runs, and a newer turn's start withdraws the offer", async () => {
    const { live, user, box } = setup();
    await user.type(box, "one{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    await user.type(box, "two{Enter}");
    live.turns[0]!.finish("max_turns");
    await waitFor(() => expect(sent(live)).toEqual(["one", "two"]));

    // "two" runs but has not said it started yet: Continue queues behind it.
    await user.click(screen.getByTestId("continue-turn"));
    expect(queuedTexts()).toEqual(["continue"]);
    expect(sent(live)).toEqual(["one", "two"]);
    live.turns[1]!.finish();
    await waitFor(() => expect(sent(live)).toEqual(["one", "two", "continue"]));

    live.turns[2]!.finish("max_turns");
    await waitFor(() => expect(screen.getByTestId("continue-turn")).toBeTruthy());
    await user.type(box, "something else{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(4));
    live.turns[3]!.send({ type: "turn_started", turn: 4 });
    await waitFor(() => expect(screen.queryByTestId("continue-turn")).toBeNull());
  });
});
