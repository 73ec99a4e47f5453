// Approvals in the normal flow: a prompt is sent from the prompt box, a request arrives, and the
// user answers from the keyboard without clicking.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { render, screen, waitFor } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import Conversation from "../lib/components/Conversation.svelte";
import { bashRequest, editRequest, queued } from "./fixtures";
import { liveSession, pastArmDelay } from "./live";

async function promptThenRequest() {
  const live = liveSession();
  const user = userEvent.setup();
  render(Conversation, { session: live.session, onclose: vi.fn() });
  const box = screen.getByTestId("prompt-input") as HTMLTextAreaElement;
  await user.type(box, "clean the build{Enter}");
  await waitFor(() => expect(live.turns).toHaveLength(1));
  expect(document.activeElement).toBe(box);
  const turn = live.turns[0]!;
  turn.send(queued("tu-r-bash", 1, false, "Bash", "Bash git status && rm -rf build"));
  turn.send({ type: "permission_requested", request: bashRequest() });
  const dialog = await screen.findByTestId("permission-dialog");
  return { live, user, box, dialog, turn };
}

describe("Approvals from the keyboard", () => {
  it("moves the focus from the prompt box to the dialog when a request arrives", async () => {
    const { dialog } = await promptThenRequest();
    await waitFor(() => expect(document.activeElement).toBe(dialog));
  });

  it("answers with Y without a click, and nothing is typed into the prompt box", async () => {
    const { live, user, box } = await promptThenRequest();
    await pastArmDelay();
    await user.keyboard("y");
    await waitFor(() => expect(live.called("answer_permission")).toHaveLength(1));
    expect(live.called("answer_permission")[0]!.answer).toEqual({ answer: "allow_once", updated_input: null });
    expect(box.value).toBe("");
    await waitFor(() => expect(screen.queryByTestId("permission-dialog")).toBeNull());
    // The caret goes back to the prompt box once nothing asks any more.
    expect(document.activeElement).toBe(box);
  });

  it("keeps the focus where the user types in the dialog while more requests and output arrive", async () => {
    const { user, turn } = await promptThenRequest();
    const message = screen.getByTestId("deny-message");
    await user.click(message);
    turn.send({ type: "text_delta", text: "meanwhile" });
    turn.send(queued("tu-r-edit", 2, false, "Edit"));
    turn.send({ type: "permission_requested", request: editRequest() });
    await waitFor(() => expect(screen.getByTestId("permission-position").textContent).toBe("1 of 2"));
    expect(document.activeElement).toBe(message);
  });

  it("answers with Enter instead of queueing it as a prompt", async () => {
    const { live, user } = await promptThenRequest();
    await pastArmDelay();
    await user.keyboard("{Enter}");
    await waitFor(() => expect(live.called("answer_permission")).toHaveLength(1));
    expect(live.called("answer_permission")[0]!.answer).toEqual({ answer: "allow_once", updated_input: null });
    expect(screen.queryByTestId("queued-prompt")).toBeNull();
    expect(live.called("send_prompt")).toHaveLength(1);
  });

  it("Escape denies the request and does not abort the turn", async () => {
    const { live, user } = await promptThenRequest();
    await pastArmDelay();
    await user.keyboard("{Escape}");
    await waitFor(() => expect(live.called("answer_permission")).toHaveLength(1));
    expect(live.called("answer_permission")[0]!.answer).toEqual({ answer: "deny", message: null });
    expect(live.called("abort_turn")).toHaveLength(0);
  });

  it("Escape while nothing asks aborts the running turn", async () => {
    const live = liveSession();
    const user = userEvent.setup();
    render(Conversation, { session: live.session, onclose: vi.fn() });
    await user.type(screen.getByTestId("prompt-input"), "go{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    await user.keyboard("{Escape}");
    expect(live.called("abort_turn")).toEqual([{ sessionId: "s1" }]);
  });

  it("Escape while idle does nothing", async () => {
    const live = liveSession();
    const user = userEvent.setup();
    render(Conversation, { session: live.session, onclose: vi.fn() });
    await user.click(screen.getByTestId("prompt-input"));
    await user.keyboard("{Escape}");
    expect(live.called("abort_turn")).toHaveLength(0);
  });
});

describe("The card asked about", () => {
  const revealed: Element[] = [];
  beforeEach(() => {
    revealed.length = 0;
    // jsdom has no layout; record which element was asked to come into view.
    vi.spyOn(Element.prototype, "scrollIntoView").mockImplementation(function (this: Element) {
      revealed.push(this);
    });
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("is scrolled into the part of the conversation left visible above the dialog", async () => {
    const { turn } = await promptThenRequest();
    await waitFor(() => expect(revealed.length).toBeGreaterThan(0));
    const card = revealed.at(-1) as HTMLElement;
    expect(card.dataset.testid).toBe("tool-card");
    expect(card.dataset.toolUseId).toBe("tu-r-bash");
    expect(screen.getByTestId("conversation-scroll").contains(card)).toBe(true);
    // More output while it waits brings the card back again rather than the newest line.
    revealed.length = 0;
    turn.send({ type: "text_delta", text: "still here" });
    await waitFor(() => expect(revealed.at(-1)).toBe(card));
  });
});
