// Copy buttons: an assistant message copies its Markdown, a code block its code, a tool result
// its text. The clipboard is mocked (jsdom has none).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import AssistantMessage from "../lib/components/AssistantMessage.svelte";
import ToolResult from "../lib/components/ToolResult.svelte";

let writeText: ReturnType<typeof vi.fn<(text: string) => Promise<void>>>;

beforeEach(() => {
  writeText = vi.fn<(text: string) => Promise<void>>().mockResolvedValue(undefined);
  Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
});
afterEach(() => {
  Reflect.deleteProperty(navigator, "clipboard");
});

const MESSAGE = "Run this:\n\n```sh\ncargo test --workspace\n```\n\nThen **commit**.";

describe("Copy buttons", () => {
  it("copy an assistant message's Markdown once it is complete", async () => {
    render(AssistantMessage, { text: MESSAGE, thinking: "", streaming: false });
    screen.getByTestId("copy-message").click();
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(MESSAGE));
    await waitFor(() => expect(screen.getByTestId("copy-message").textContent?.trim()).toBe("Copied"));
  });

  it("offer no message copy while the message still streams", () => {
    render(AssistantMessage, { text: "Working", thinking: "", streaming: true });
    expect(screen.queryByTestId("copy-message")).toBeNull();
  });

  it("copy a code block's code alone", async () => {
    render(AssistantMessage, { text: MESSAGE, thinking: "", streaming: false });
    const pre = screen.getByTestId("assistant-text").querySelector("pre")!;
    within(pre).getByTestId("copy-code").click();
    await waitFor(() => expect(writeText).toHaveBeenCalledWith("cargo test --workspace"));
  });

  it("copy a tool result's text", async () => {
    render(ToolResult, { blocks: [{ type: "text", text: "line 1\nline 2" }, { type: "text", text: "more" }] });
    screen.getByTestId("copy-result").click();
    await waitFor(() => expect(writeText).toHaveBeenCalledWith("line 1\nline 2\nmore"));
  });

  it("say so when the clipboard refuses", async () => {
    writeText.mockRejectedValue(new Error("denied"));
    render(ToolResult, { blocks: [{ type: "text", text: "x" }] });
    screen.getByTestId("copy-result").click();
    await waitFor(() => expect(screen.getByTestId("copy-result").textContent?.trim()).toBe("Copy failed"));
  });
});
