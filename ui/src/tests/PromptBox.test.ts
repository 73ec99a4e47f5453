import { beforeEach, describe, expect, it, vi } from "vitest";
import { render, screen, waitFor } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import { mockIPC, mockWindows } from "@tauri-apps/api/mocks";
import type { Channel } from "@tauri-apps/api/core";
import type { Event } from "../bindings/Event";
import PromptBox from "../lib/components/PromptBox.svelte";
import Conversation from "../lib/components/Conversation.svelte";
import { SessionStore } from "../lib/conversation/session.svelte";
import { sessionInfo } from "./live";
import { said, userMessage } from "./messages";

describe("PromptBox", () => {
  it("sends on Enter, inserts a newline on Shift+Enter, and clears after sending", async () => {
    const user = userEvent.setup();
    const onsubmit = vi.fn();
    render(PromptBox, { running: false, queue: [], onsubmit, onremove: vi.fn(), onabort: vi.fn() });
    const box = screen.getByTestId("prompt-input") as HTMLTextAreaElement;
    await user.type(box, "first line{Shift>}{Enter}{/Shift}second");
    expect(onsubmit).not.toHaveBeenCalled();
    expect(box.value).toBe("first line\nsecond");
    await user.keyboard("{Enter}");
    expect(onsubmit).toHaveBeenCalledWith("first line\nsecond", [], []);
    expect(box.value).toBe("");
    expect(screen.queryByTestId("abort-button")).toBeNull();
  });

  it("lists queued prompts with remove buttons and offers Abort while running", async () => {
    const user = userEvent.setup();
    const onremove = vi.fn();
    const onabort = vi.fn();
    render(PromptBox, { running: true, queue: [{ id: 7, text: "then run tests", images: [], attachments: [] }], onsubmit: vi.fn(), onremove, onabort });
    expect(screen.getByTestId("queued-prompt").textContent).toContain("then run tests");
    await user.click(screen.getByTestId("queued-remove"));
    expect(onremove).toHaveBeenCalledWith(7);
    await user.click(screen.getByTestId("abort-button"));
    expect(onabort).toHaveBeenCalled();
  });
});

describe("Conversation with a live session: queue while running", () => {
  type Pending = { prompt: string; channel: Channel<Event>; finish: () => void };
  let pending: Pending[];
  let aborted: number;
  let interrupted: number;

  beforeEach(() => {
    pending = [];
    aborted = 0;
    interrupted = 0;
    mockWindows("main");
    mockIPC((cmd, args) => {
      const a = args as Record<string, unknown>;
      if (cmd === "send_prompt") {
        return new Promise((resolve) => {
          pending.push({
            prompt: a.prompt as string,
            channel: a.onEvent as Channel<Event>,
            finish: () => resolve({ end: "end_turn", error: null }),
          });
        });
      }
      if (cmd === "abort_turn") aborted++;
      if (cmd === "interrupt_turn") interrupted++;
      return null;
    });
  });

  it("queues prompts typed during a turn, lets one be removed, and sends the rest when the turn ends", async () => {
    const user = userEvent.setup();
    const session = new SessionStore(sessionInfo({ project_path: "/p" }));
    render(Conversation, { session, onclose: vi.fn() });
    const box = screen.getByTestId("prompt-input");

    await user.type(box, "one{Enter}");
    await waitFor(() => expect(pending).toHaveLength(1));
    expect(screen.getByTestId("turn-status").textContent?.trim()).toBe("running");

    // Stream a little: the engine echoes the prompt and starts answering.
    pending[0]!.channel.onmessage(userMessage("one"));
    pending[0]!.channel.onmessage({ type: "text_delta", text: "Working **on it**" });
    await waitFor(() => expect(screen.getByTestId("assistant-text").innerHTML).toContain("<strong>on it</strong>"));

    await user.type(box, "two{Enter}");
    await user.type(box, "three{Enter}");
    let queued = screen.getAllByTestId("queued-prompt");
    expect(queued.map((q) => q.textContent)).toEqual([expect.stringContaining("two"), expect.stringContaining("three")]);
    expect(pending).toHaveLength(1); // nothing sent while running

    await user.click(screen.getAllByTestId("queued-remove")[0]!);
    queued = screen.getAllByTestId("queued-prompt");
    expect(queued).toHaveLength(1);

    await user.click(screen.getByTestId("abort-button"));
    expect(aborted).toBe(1);

    pending[0]!.channel.onmessage({ type: "turn_ended", reason: "aborted" });
    pending[0]!.finish();
    await waitFor(() => expect(pending).toHaveLength(2));
    expect(pending[1]!.prompt).toBe("three");
    expect(screen.queryByTestId("queued-prompt")).toBeNull();
    expect(screen.getByTestId("turn-status").textContent?.trim()).toBe("running");
    pending[1]!.channel.onmessage({ type: "turn_ended", reason: "end_turn" });
    pending[1]!.finish();
    await waitFor(() => expect(screen.getByTestId("turn-status").textContent?.trim()).toBe("idle"));
  });
  it("sends a queued prompt now by interrupting the turn; it goes out first when the turn ends", async () => {
    const user = userEvent.setup();
    const session = new SessionStore(sessionInfo({ project_path: "/p" }));
    render(Conversation, { session, onclose: vi.fn() });
    const box = screen.getByTestId("prompt-input");
    await user.type(box, "one{Enter}");
    await waitFor(() => expect(pending).toHaveLength(1));
    await user.type(box, "two{Enter}");
    await user.type(box, "stop that, do this{Enter}");

    // "Send now" on the second queued prompt: the turn is interrupted, not aborted.
    await user.click(screen.getAllByTestId("queued-send-now")[1]!);
    expect(interrupted).toBe(1);
    expect(aborted).toBe(0);
    expect(screen.getAllByTestId("queued-prompt").map((q) => q.textContent)).toEqual([
      expect.stringContaining("stop that, do this"),
      expect.stringContaining("two"),
    ]);

    pending[0]!.channel.onmessage({ type: "turn_ended", reason: "interrupted" });
    pending[0]!.finish();
    await waitFor(() => expect(pending).toHaveLength(2));
    expect(pending[1]!.prompt).toBe("stop that, do this");
    expect(screen.getAllByTestId("queued-prompt").map((q) => q.textContent)).toEqual([expect.stringContaining("two")]);
  });
});

describe("SessionStore turn outcome", () => {
  beforeEach(() => mockWindows("main"));

  it("shows a failed turn's error once and a rejected send_prompt as an error notice", async () => {
    let call = 0;
    mockIPC((cmd, args) => {
      if (cmd !== "send_prompt") return null;
      call++;
      if (call === 1) {
        const ch = (args as { onEvent: Channel<Event> }).onEvent;
        ch.onmessage({ type: "error", message: "rate limited" });
        ch.onmessage({ type: "turn_ended", reason: "error" });
        return { end: "error", error: "rate limited", session_cost_usd: null };
      }
      throw "no such session";
    });
    const session = new SessionStore(sessionInfo({ project_path: "/p" }));
    session.submit("one");
    await waitFor(() => expect(session.running).toBe(false));
    await waitFor(() => expect(session.state.last_end).toBe("error"));
    const errors = () => session.state.items.filter((i) => i.kind === "notice" && i.level === "error").map((i) => (i as { text: string }).text);
    expect(errors()).toEqual(["rate limited", "Turn ended: error"]);
    session.submit("two");
    await waitFor(() => expect(errors()).toContain("no such session"));
    expect(session.running).toBe(false);
  });
});

describe("PromptBox history", () => {
  function renderWithHistory(history: string[]) {
    render(PromptBox, { running: false, queue: [], history, onsubmit: vi.fn(), onremove: vi.fn(), onabort: vi.fn() });
    return screen.getByTestId("prompt-input") as HTMLTextAreaElement;
  }

  it("Up on the first line recalls older prompts, Down on the last line newer ones and then the draft", async () => {
    const user = userEvent.setup();
    const box = renderWithHistory(["first", "second\nline two"]);
    await user.type(box, "dra");
    await user.keyboard("{ArrowUp}");
    expect(box.value).toBe("second\nline two");
    expect(box.selectionStart).toBe(0); // ready for the next Up
    await user.keyboard("{ArrowUp}");
    expect(box.value).toBe("first");
    await user.keyboard("{ArrowUp}");
    expect(box.value).toBe("first"); // nothing older
    await user.keyboard("{ArrowDown}");
    expect(box.value).toBe("second\nline two");
    expect(box.selectionStart).toBe(box.value.length); // ready for the next Down
    await user.keyboard("{ArrowDown}");
    expect(box.value).toBe("dra");
  });

  it("leaves Up and Down to the caret inside a multi-line prompt", async () => {
    const user = userEvent.setup();
    const box = renderWithHistory(["earlier"]);
    await user.type(box, "one{Shift>}{Enter}{/Shift}two");
    await user.keyboard("{ArrowUp}"); // the caret is on the second line
    expect(box.value).toBe("one\ntwo");
    box.setSelectionRange(1, 1);
    await user.keyboard("{ArrowDown}"); // on the first line, Down is not a history step
    expect(box.value).toBe("one\ntwo");
    await user.keyboard("{ArrowUp}");
    expect(box.value).toBe("earlier");
  });
});

describe("SessionStore history", () => {
  beforeEach(() => {
    mockWindows("main");
    mockIPC(() => new Promise(() => {}));
  });

  it("keeps the session's prompts, including those of a resumed session, without repeating one", () => {
    const session = new SessionStore(sessionInfo({ project_path: "/p", history: [said("fix the parser")] }));
    expect(session.history).toEqual(["fix the parser"]);
    session.submit("run the tests");
    session.submit("then commit"); // queued while the first runs: still recalled
    session.submit("then commit");
    expect(session.history).toEqual(["fix the parser", "run the tests", "then commit"]);
  });
});
