// The app's keys: Ctrl+Tab / Ctrl+Shift+Tab go round the live sessions in the sidebar's order,
// Alt+N shows the N-th, Ctrl+Shift+A shows the session whose approval waits with the focus on it,
// Ctrl+Shift+N starts a session in the active project, Ctrl+, opens Settings; none of them while
// the palette is open, and plain typing in a field is never taken.
import { afterEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/svelte";
import { bashRequest, queued, sessionSummary } from "./fixtures";
import { ALPHA, keysApp, promptOf, rows, shownId, startSessions, view } from "./keysApp";

afterEach(() => {
  vi.restoreAllMocks();
});

/** Three live sessions, listed newest first (as the engine lists them): new-3, new-2, new-1. */
async function threeSessions() {
  const listings = {
    [ALPHA]: [
      sessionSummary("new-3", { title: "Third", modified_ms: 3_000 }),
      sessionSummary("new-2", { title: "Second", modified_ms: 2_000 }),
      sessionSummary("new-1", { title: "First", modified_ms: 1_000 }),
    ],
  };
  const app = keysApp({ listings });
  await startSessions(app.user, 3);
  await waitFor(() => expect(rows().map((r) => r.dataset.sessionId)).toEqual(["new-3", "new-2", "new-1"]));
  return app;
}

describe("Keys that switch sessions", () => {
  it("Ctrl+Tab goes down the sidebar's live sessions and round; Ctrl+Shift+Tab goes back", async () => {
    const { user } = await threeSessions();
    expect(shownId()).toBe("new-3");
    await user.keyboard("{Control>}{Tab}{/Control}");
    expect(shownId()).toBe("new-2");
    await user.keyboard("{Control>}{Tab}{/Control}");
    expect(shownId()).toBe("new-1");
    await user.keyboard("{Control>}{Tab}{/Control}");
    expect(shownId()).toBe("new-3");
    await user.keyboard("{Control>}{Shift>}{Tab}{/Shift}{/Control}");
    expect(shownId()).toBe("new-1");
    expect(rows().find((r) => r.getAttribute("aria-current") === "true")?.dataset.sessionId).toBe("new-1");
  });

  it("Alt+2 shows the second session of the sidebar, from the prompt box too; Alt+9 with fewer does nothing", async () => {
    const { user } = await threeSessions();
    await user.click(promptOf("new-3"));
    await user.keyboard("{Alt>}2{/Alt}");
    expect(shownId()).toBe("new-2");
    // Typed nothing into the box it was pressed in.
    expect(promptOf("new-3").value).toBe("");
    await user.keyboard("{Alt>}3{/Alt}");
    expect(shownId()).toBe("new-1");
    await user.keyboard("{Alt>}9{/Alt}");
    expect(shownId()).toBe("new-1");
  });

  it("closes Settings to show the session", async () => {
    const { user } = await threeSessions();
    await user.click(screen.getByTestId("open-settings"));
    await screen.findByTestId("settings-panel");
    expect(shownId()).toBeNull();
    await user.keyboard("{Control>}{Tab}{/Control}");
    expect(shownId()).toBe("new-2");
    expect(screen.queryByTestId("settings-panel")).toBeNull();
  });

  it("does nothing while the palette is open, and leaves plain typing in the prompt box alone", async () => {
    const { user } = await threeSessions();
    await user.keyboard("{Control>}k{/Control}");
    await screen.findByTestId("command-palette");
    await user.keyboard("{Control>}{Tab}{/Control}");
    expect(shownId()).toBe("new-3");
    await user.keyboard("{Escape}");
    await waitFor(() => expect(screen.queryByTestId("command-palette")).toBeNull());

    await user.type(promptOf("new-3"), "fix 1, 2 and `this`");
    expect(promptOf("new-3").value).toBe("fix 1, 2 and `this`");
    expect(shownId()).toBe("new-3");
  });
});

describe("The key to the waiting approval", () => {
  /** Two sessions: new-1 runs a turn that asks for an approval, new-2 shows. */
  async function waitingInFirst() {
    const app = keysApp();
    await startSessions(app.user, 1);
    await app.user.type(promptOf("new-1"), "clean up{Enter}");
    await waitFor(() => expect(app.live.turns).toHaveLength(1));
    await app.user.click((await screen.findAllByTestId("sidebar-new-session"))[0]!);
    await waitFor(() => expect(shownId()).toBe("new-2"));
    const turn = app.live.turns[0]!;
    turn.send(queued("tu-r-bash", 1, false, "Bash", "Bash git status && rm -rf build"));
    turn.send({ type: "permission_requested", request: bashRequest() });
    await waitFor(() => expect(within(view("new-1")).getByTestId("permission-dialog")).toBeTruthy());
    return app;
  }

  it("Ctrl+Shift+A shows the session whose approval waits, with the focus on its approval panel", async () => {
    const { user } = await waitingInFirst();
    await user.click(promptOf("new-2"));
    await user.keyboard("{Control>}{Shift>}A{/Shift}{/Control}");
    expect(shownId()).toBe("new-1");
    const dialog = within(view("new-1")).getByTestId("permission-dialog");
    await waitFor(() => expect(document.activeElement).toBe(dialog));
    // Nothing was typed into the box it was pressed in.
    expect(promptOf("new-2").value).toBe("");
  });

  it("takes the focus back to the panel of the session already shown, and comes back from Settings", async () => {
    const { user } = await waitingInFirst();
    await user.click(screen.getAllByTestId("sidebar-session").find((r) => r.dataset.sessionId === "new-1")!);
    await user.click(promptOf("new-1"));
    expect(document.activeElement).toBe(promptOf("new-1"));
    await user.keyboard("{Control>}{Shift>}A{/Shift}{/Control}");
    const dialog = within(view("new-1")).getByTestId("permission-dialog");
    await waitFor(() => expect(document.activeElement).toBe(dialog));

    await user.click(screen.getByTestId("open-settings"));
    await screen.findByTestId("settings-panel");
    await user.keyboard("{Control>}{Shift>}A{/Shift}{/Control}");
    await waitFor(() => expect(shownId()).toBe("new-1"));
    expect(screen.queryByTestId("settings-panel")).toBeNull();
    await waitFor(() => expect(document.activeElement).toBe(dialog));
  });

  it("says so when nothing waits", async () => {
    const { user } = keysApp();
    await startSessions(user, 1);
    await user.keyboard("{Control>}{Shift>}A{/Shift}{/Control}");
    await waitFor(() => expect(screen.getByTestId("live-announcer").textContent).toBe("No approval is waiting."));
    expect(shownId()).toBe("new-1");
  });
});

describe("Keys for a new session and Settings", () => {
  it("Ctrl+Shift+N starts a session in the active session's project, and Ctrl+, opens Settings", async () => {
    const { user, live } = keysApp();
    await startSessions(user, 1);
    await user.keyboard("{Control>}{Shift>}N{/Shift}{/Control}");
    await waitFor(() => expect(shownId()).toBe("new-2"));
    expect(live.called("start_session").at(-1)).toEqual({ projectPath: ALPHA, resume: null });

    await user.keyboard("{Control>},{/Control}");
    expect(await screen.findByTestId("settings-panel")).toBeTruthy();
  });

  it("keeps the terminal's toggle, the prompts' and find's keys as they were", async () => {
    const { user } = keysApp();
    await startSessions(user, 1);
    await user.keyboard("{Control>}{Shift>}P{/Shift}{/Control}");
    expect(within(view("new-1")).getByTestId("prompt-navigator")).toBeTruthy();
    await user.keyboard("{Control>}f{/Control}");
    await waitFor(() => expect(within(view("new-1")).getByTestId("find-bar")).toBeTruthy());
    expect(within(view("new-1")).getByTestId("terminal-toggle").title).toContain("(Ctrl+`)");
  });
});
