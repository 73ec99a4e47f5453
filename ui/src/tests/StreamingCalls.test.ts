// Calls whose input the model is still writing: the reducer makes a card of them at once, follows
// the input as it arrives, turns the card into the queued one where it is, and drops it when the
// response broke off; the card shows the file and the newest lines as they come.
import { beforeEach, describe, expect, it } from "vitest";
import { render, screen, within } from "@testing-library/svelte";
import { mockWindows } from "@tauri-apps/api/mocks";
import type { Event } from "../bindings/Event";
import MessageList from "../lib/components/MessageList.svelte";
import { initialState, reduce } from "../lib/conversation/reducer";
import { keepLate } from "../lib/conversation/turns";
import type { ConversationState, Item } from "../lib/conversation/types";
import { lastLines } from "../lib/streamingInput";
import { completed, queued } from "./fixtures";
import { inputDelta, inputStarted } from "./subagentFixtures";

function run(events: Event[], start: ConversationState = initialState()): ConversationState {
  return events.reduce((s, e, i) => reduce(s, e, 1000 + i), start);
}

const batches = (s: ConversationState) => s.items.filter((i): i is Extract<Item, { kind: "batch" }> => i.kind === "batch");
const kinds = (s: ConversationState) => s.items.map((i) => i.kind);

describe("reducer: a call's input as it streams", () => {
  it("shows the call at once, follows its input (appended, then restarted), and queues it in place", () => {
    let s = run([{ type: "text_delta", text: "Writing the script." }, inputStarted("w", "Write")]);
    expect(s.tools.get("w")).toMatchObject({ status: "streaming", tool_name: "Write", tool_kind: { kind: "file_write" }, summary: "" });
    expect(s.tools.get("w")!.stream).toEqual({ path: null, text: "", newlines: 0, bytes: 0 });
    expect(kinds(s)).toEqual(["assistant", "batch"]);
    const key = s.items[1]!.key;

    s = run([inputDelta("w", "import os\n", { path: "/p/a.py", bytes: 40 }), inputDelta("w", "print(", { bytes: 52 })], s);
    expect(s.tools.get("w")!.stream).toEqual({ path: "/p/a.py", text: "import os\nprint(", newlines: 1, bytes: 52 });
    // The engine sends the whole text again when it could not follow on.
    s = run([inputDelta("w", "import sys\nprint(1)\n", { path: "/p/a.py", restart: true, bytes: 70 })], s);
    expect(s.tools.get("w")!.stream).toEqual({ path: "/p/a.py", text: "import sys\nprint(1)\n", newlines: 2, bytes: 70 });

    s = run([{ type: "text_delta", text: " Then run it." }, queued("w", 4, false, "Write", "Write /p/a.py")], s);
    const call = s.tools.get("w")!;
    expect(call).toMatchObject({ status: "queued", summary: "Write /p/a.py", batch_id: 4, stream: null });
    // Same place, same row: the card turns into the queued one.
    expect(kinds(s)).toEqual(["assistant", "batch", "assistant"]);
    expect(batches(s)).toEqual([{ kind: "batch", key, batch_id: 4, concurrent: false, tool_ids: ["w"] }]);

    s = run([{ type: "tool_started", tool_use_id: "w" }, completed("w", { changed_files: ["/p/a.py"] })], s);
    expect(s.tools.get("w")).toMatchObject({ status: "completed", changed_files: ["/p/a.py"] });
  });

  it("puts calls written one after another into one group once the engine batches them", () => {
    const s = run([
      inputStarted("a", "Read"),
      inputStarted("b", "Read"),
      queued("a", 7, true, "Read"),
      queued("b", 7, true, "Read"),
      inputStarted("c", "Bash"),
      queued("c", 8, false, "Bash"),
    ]);
    expect(batches(s).map((b) => [b.batch_id, b.concurrent, b.tool_ids])).toEqual([
      [7, true, ["a", "b"]],
      [8, false, ["c"]],
    ]);
  });

  it("drops a call whose response broke off before its input was complete", () => {
    const s = run([
      queued("kept", 1, false, "Read"),
      { type: "text_delta", text: "Now the file." },
      inputStarted("w", "Write"),
      inputDelta("w", "half a file", { path: "/p/b.txt" }),
      { type: "tool_input_abandoned", tool_use_id: "w" },
    ]);
    expect(s.tools.has("w")).toBe(false);
    expect(batches(s).map((b) => b.tool_ids)).toEqual([["kept"]]);
    expect(kinds(s)).toEqual(["batch", "assistant"]);
    // A queued call is no longer the stream's to take back.
    const queuedState = run([inputStarted("q", "Bash"), queued("q", 2, false, "Bash"), { type: "tool_input_abandoned", tool_use_id: "q" }]);
    expect(queuedState.tools.get("q")!.status).toBe("queued");
  });

  it("ends showing the engine's error when the input was broken or too large", () => {
    const error = "The tool call's input was not valid JSON (the response was cut off at 32,000 output tokens).";
    const s = run([
      inputStarted("w", "Write"),
      inputDelta("w", "lots of text", { path: "/p/big.txt" }),
      queued("w", 3, false, "Write", "Write /p/big.txt"),
      completed("w", { is_error: true, error, content: [{ type: "text", text: `<tool_use_error>${error}</tool_use_error>` }] }),
    ]);
    expect(s.tools.get("w")).toMatchObject({ status: "error", error, stream: null });
    expect(batches(s)).toHaveLength(1);
  });

  it("ignores input that arrives after the call was queued, and keeps late input of an ended turn", () => {
    const s = run([inputStarted("b", "Bash"), queued("b", 1, false, "Bash", "Bash ls"), inputDelta("b", "ls -la")]);
    expect(s.tools.get("b")).toMatchObject({ status: "queued", stream: null, summary: "Bash ls" });
    expect(keepLate(inputDelta("b", "x"), true)).toBe(true);
    expect(keepLate({ type: "tool_input_abandoned", tool_use_id: "b" }, true)).toBe(true);
    expect(keepLate(inputStarted("n", "Bash"), true)).toBe(false);
  });

  it("keeps the newest lines of a long input", () => {
    const text = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join("\n");
    expect(lastLines(text, 3)).toBe("line 48\nline 49\nline 50");
    expect(lastLines(`${text}\n`, 2)).toBe("line 49\nline 50\n");
    expect(lastLines("short", 30)).toBe("short");
  });
});

describe("a streaming call's card", () => {
  beforeEach(() => mockWindows("main"));

  const card = (id: string) => document.querySelector(`[data-tool-use-id="${id}"]`) as HTMLElement;

  it("shows a Write's file and its content growing, then becomes the queued card", async () => {
    let s = run([inputStarted("w", "Write")]);
    const { rerender } = render(MessageList, { conversation: s, sessionId: "s1" });
    expect(card("w").dataset.status).toBe("streaming");
    expect(within(card("w")).getByTestId("tool-status").textContent).toBe("writing…");
    expect(within(card("w")).getByTestId("tool-card-streaming")).toBeTruthy();

    s = run([inputDelta("w", "def main():\n", { path: "/p/app.py", bytes: 1024 })], s);
    await rerender({ conversation: s });
    expect(within(card("w")).getByTestId("tool-summary").textContent).toBe("/p/app.py");
    expect(within(card("w")).getByTestId("streaming-text").textContent).toBe("def main():\n");
    expect(within(card("w")).getByTestId("streaming-size").textContent).toBe("1 line · 1.0 KB so far");

    const body = Array.from({ length: 40 }, (_, i) => `    step(${i})`).join("\n");
    s = run([inputDelta("w", body, { path: "/p/app.py", bytes: 2560 })], s);
    await rerender({ conversation: s });
    const shown = within(card("w")).getByTestId("streaming-text").textContent!;
    // The newest 30 lines, not the first.
    expect(shown.split("\n")).toHaveLength(30);
    expect(shown.endsWith("    step(39)")).toBe(true);
    expect(shown).not.toContain("def main");
    expect(within(card("w")).getByTestId("streaming-size").textContent).toBe("41 lines · 2.5 KB so far");

    s = run([queued("w", 2, false, "Write", "Write /p/app.py · 41 lines")], s);
    await rerender({ conversation: s });
    expect(screen.getAllByTestId("tool-card")).toHaveLength(1);
    expect(card("w").dataset.status).toBe("queued");
    expect(within(card("w")).queryByTestId("tool-card-streaming")).toBeNull();
    expect(within(card("w")).getByTestId("tool-summary").textContent).toBe("Write /p/app.py · 41 lines");
  });

  it("shows a Bash command as it is written, without a size", () => {
    const s = run([inputStarted("b", "Bash"), inputDelta("b", "cargo test --work")]);
    render(MessageList, { conversation: s, sessionId: "s1" });
    expect(within(card("b")).getByTestId("streaming-text").textContent).toBe("cargo test --work");
    expect(within(card("b")).queryByTestId("streaming-size")).toBeNull();
  });
});
