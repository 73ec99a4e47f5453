// Links in replies open in the system browser through the shell (http and https only; nothing
// navigates the webview), Export saves the session as Markdown through the shell, and closing a
// running or waiting session asks first.
import { afterEach, describe, expect, it, vi } from "vitest";
import { render, screen, waitFor } from "@testing-library/svelte";
import { clearMocks } from "@tauri-apps/api/mocks";
import AssistantMessage from "../lib/components/AssistantMessage.svelte";
import Conversation from "../lib/components/Conversation.svelte";
import { liveSession } from "./live";

afterEach(() => clearMocks());

describe("links in replies", () => {
  it("hand http and https links to the shell and cancel every navigation", async () => {
    const live = liveSession();
    render(AssistantMessage, {
      text: "See [the docs](https://docs.rs/tauri), [local](http://localhost:3000/x), [a file](file:///etc/passwd) and [script](javascript:alert(1)).",
      thinking: "",
      streaming: false,
    });
    const clicks = [...screen.getByTestId("assistant-text").querySelectorAll("a")].map((a) => {
      const event = new MouseEvent("click", { bubbles: true, cancelable: true });
      a.dispatchEvent(event);
      return event.defaultPrevented;
    });
    expect(clicks.every((prevented) => prevented)).toBe(true);
    await waitFor(() =>
      expect(live.called("open_link")).toEqual([{ url: "https://docs.rs/tauri" }, { url: "http://localhost:3000/x" }]),
    );
  });
});

describe("Export", () => {
  it("saves through the shell and says where", async () => {
    const live = liveSession(undefined, { export_session: () => "/home/me/nerve-session.md" });
    render(Conversation, { session: live.session, onclose: vi.fn() });
    screen.getByTestId("export-session").click();
    await waitFor(() => expect(live.called("export_session")).toEqual([{ sessionId: live.session.id }]));
    await waitFor(() => expect(screen.getByText("Session exported to /home/me/nerve-session.md")).toBeTruthy());
  });

  it("says nothing when the user cancels the dialog, and shows a failure", async () => {
    let fail = false;
    const live = liveSession(undefined, {
      export_session: () => {
        if (fail) throw "could not write /ro/x.md: Read-only file system";
        return null;
      },
    });
    render(Conversation, { session: live.session, onclose: vi.fn() });
    screen.getByTestId("export-session").click();
    await waitFor(() => expect(live.called("export_session").length).toBe(1));
    expect(screen.queryByText(/Session exported/)).toBeNull();
    fail = true;
    screen.getByTestId("export-session").click();
    await waitFor(() => expect(screen.getByText(/Read-only file system/)).toBeTruthy());
  });
});

describe("Close session", () => {
  it("closes at once when idle", async () => {
    const live = liveSession();
    const onclose = vi.fn();
    render(Conversation, { session: live.session, onclose });
    screen.getByTestId("close-session").click();
    await waitFor(() => expect(onclose).toHaveBeenCalledTimes(1));
  });

  it("asks first while a turn runs, and Keep keeps it", async () => {
    const live = liveSession();
    const onclose = vi.fn();
    render(Conversation, { session: live.session, onclose });
    live.session.submit("work");
    await waitFor(() => expect(live.turns.length).toBe(1));
    screen.getByTestId("close-session").click();
    await waitFor(() => expect(screen.getByTestId("close-confirm").textContent).toContain("A turn is running"));
    expect(onclose).not.toHaveBeenCalled();
    screen.getByTestId("close-confirm-no").click();
    await waitFor(() => expect(screen.queryByTestId("close-confirm")).toBeNull());
    screen.getByTestId("close-session").click();
    (await screen.findByTestId("close-confirm-yes")).click();
    expect(onclose).toHaveBeenCalledTimes(1);
    live.turns[0]!.finish();
  });
});
