// Turn-end notices and markers: every ended turn (but one the user stopped) is told to the shell,
// which sends a system notification when the user is not looking and says whether they were; a
// session whose turn ended unseen says "done" or "failed" in the sidebar until it is opened; one
// live region tells screen readers of turn ends and new approval requests; Settings choose which
// ends are notified.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import App from "../App.svelte";
import SettingsPanel from "../lib/components/SettingsPanel.svelte";
import type { Channel } from "@tauri-apps/api/core";
import type { AttentionEvent } from "../bindings/AttentionEvent";
import type { TranscriptSummary } from "../bindings/TranscriptSummary";
import type { TurnEnd } from "../bindings/TurnEnd";
import { announce, announcer } from "../lib/announcer.svelte";
import { SessionStore } from "../lib/conversation/session.svelte";
import { LiveSessions } from "../lib/sessions.svelte";
import { isNews, markerFor, turnEndText } from "../lib/turnNotices";
import { bashRequest, queued, sessionSummary } from "./fixtures";
import { appState, liveSession, projectInfo, sessionInfo, type Handler, type Live } from "./live";
import { mockSettings } from "./settingsFixtures";

const ALPHA = "/home/me/projects/alpha";
const settle = () => new Promise((r) => setTimeout(r, 50));

beforeEach(() => {
  announcer.text = "";
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("How a turn's end is told", () => {
  it("says done, failed with the engine's message, or stopped at the call limit", () => {
    expect(turnEndText("Fix the parser", "end_turn", null)).toBe("Fix the parser: done.");
    expect(turnEndText("Fix the parser", "stopped_by_hook", null)).toBe("Fix the parser: done.");
    expect(turnEndText("Fix the parser", "max_turns", null)).toBe("Fix the parser: stopped at the call limit.");
    expect(turnEndText("Fix the parser", "error", "the API answered 529 overloaded.")).toBe("Fix the parser: failed: the API answered 529 overloaded.");
    // Without a message, the shell's words for the same end.
    expect(turnEndText("Fix the parser", "max_tokens", null)).toBe("Fix the parser: failed: the answer reached its length limit.");
    expect(turnEndText("Fix the parser", "refusal", null)).toBe("Fix the parser: failed: the model declined to go on.");
    expect(turnEndText("Fix the parser", "error", null)).toBe("Fix the parser: failed.");
  });

  it("marks a finished turn done and one that failed or stopped at a limit failed; a turn the user stopped is no news", () => {
    const ends: TurnEnd[] = ["end_turn", "stopped_by_hook", "max_turns", "max_tokens", "refusal", "error", "aborted", "interrupted"];
    expect(ends.filter(isNews).map((end) => [end, markerFor(end)])).toEqual([
      ["end_turn", "done"],
      ["stopped_by_hook", "done"],
      ["max_turns", "failed"],
      ["max_tokens", "failed"],
      ["refusal", "failed"],
      ["error", "failed"],
    ]);
  });

  it("changes the live region's text when the same thing is announced again, so it is heard again", () => {
    announce("Fix the parser: done.");
    const first = announcer.text;
    expect(first).toBe("Fix the parser: done.");
    announce("Fix the parser: done.");
    expect(announcer.text).not.toBe(first);
    expect(announcer.text.trim()).toBe("Fix the parser: done.");
    announce("Fix the parser: done.");
    expect(announcer.text).toBe(first);
  });
});

/** Two live sessions: `a` (its prompts held open by the mocked shell) and `b`, the one shown. */
function twoSessions(handlers: Record<string, Handler> = {}) {
  const live = liveSession(sessionInfo({ session_id: "a" }), handlers);
  const a = live.session;
  const b = new SessionStore(sessionInfo({ session_id: "b" }));
  const sessions = new LiveSessions();
  sessions.add(a);
  sessions.add(b);
  return { live, a, b, sessions };
}

/** Sends a prompt in a session and ends its turn as the engine does (every store shares the mocked
 *  shell, so its turns are in `live.turns`). */
async function turn(live: Live, store: SessionStore, prompt: string, end: TurnEnd = "end_turn", error: string | null = null) {
  const before = live.turns.length;
  store.submit(prompt);
  await waitFor(() => expect(live.turns).toHaveLength(before + 1));
  live.turns[before]!.finish(end, error);
  await waitFor(() => expect(store.running).toBe(false));
}

describe("The live sessions tell the shell of each ended turn", () => {
  it("in a session not shown: the shell hears its title and outcome, and the session is marked when the user was not looking", async () => {
    // The mocked shell answers that the user was looking when the session showed.
    const { live, a, b, sessions } = twoSessions();
    expect(sessions.activeId).toBe("b");
    await turn(live, a, "fix   the\nparser");

    await waitFor(() => expect(live.called("turn_ended")).toHaveLength(1));
    expect(live.called("turn_ended")[0]).toEqual({ sessionId: "a", title: "fix the parser", end: "end_turn", error: null, shown: false });
    await waitFor(() => expect(a.marker).toBe("done"));
    expect(b.marker).toBeNull();
    expect(announcer.text).toBe("fix the parser: done.");
  });

  it("in the shown session: told as shown, marked only when the shell says the window was in the background", async () => {
    const looking = [true, false];
    const { live, b, sessions } = twoSessions({ turn_ended: () => looking.shift() });
    await turn(live, b, "one", "error", "the API answered 529 overloaded");
    await waitFor(() => expect(live.called("turn_ended")).toHaveLength(1));
    expect(live.called("turn_ended")[0]).toEqual({
      sessionId: "b",
      title: "one",
      end: "error",
      error: "the API answered 529 overloaded",
      shown: true,
    });
    expect(announcer.text).toBe("one: failed: the API answered 529 overloaded.");
    await settle();
    expect(b.marker).toBeNull();

    await turn(live, b, "two", "max_turns");
    await waitFor(() => expect(live.called("turn_ended")).toHaveLength(2));
    expect(live.called("turn_ended")[1]).toEqual({ sessionId: "b", title: "one", end: "max_turns", error: null, shown: true });
    expect(announcer.text).toBe("one: stopped at the call limit.");
    await waitFor(() => expect(b.marker).toBe("failed"));
    expect(sessions.activeId).toBe("b");
  });

  it("says nothing of a turn the user stopped or interrupted", async () => {
    const { live, a } = twoSessions({ turn_ended: () => false });
    await turn(live, a, "one", "aborted");
    await turn(live, a, "two", "interrupted");
    await settle();
    expect(live.called("turn_ended")).toEqual([]);
    expect(a.marker).toBeNull();
    expect(announcer.text).toBe("");
  });

  it("says nothing of a turn that ends after its session was closed", async () => {
    const { live, a, sessions } = twoSessions({ turn_ended: () => false });
    a.submit("one");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    sessions.remove("a");
    live.turns[0]!.finish("error", "the session ended");
    await waitFor(() => expect(a.running).toBe(false));
    await settle();
    expect(live.called("turn_ended")).toEqual([]);
    expect(announcer.text).toBe("");
  });

  it("without the shell's answer, goes by the page's focus: a shown session in a focused window is seen", async () => {
    const { live, a, b } = twoSessions({ turn_ended: () => Promise.reject("the window is gone") });
    const focus = vi.spyOn(document, "hasFocus").mockReturnValue(true);
    await turn(live, b, "shown");
    await turn(live, a, "hidden");
    await waitFor(() => expect(a.marker).toBe("done"));
    expect(b.marker).toBeNull();

    focus.mockReturnValue(false);
    await turn(live, b, "again", "refusal");
    await waitFor(() => expect(b.marker).toBe("failed"));
  });

  it("leaves no marker on a session opened while the shell was answering", async () => {
    let answer: (looking: boolean) => void = () => {};
    const { live, a, sessions } = twoSessions({ turn_ended: () => new Promise<boolean>((r) => (answer = r)) });
    await turn(live, a, "one");
    await waitFor(() => expect(live.called("turn_ended")).toHaveLength(1));
    sessions.activate("a");
    answer(false);
    await settle();
    expect(a.marker).toBeNull();
  });

  it("counts the active session as not shown while the picker, Settings or Outputs covers it", async () => {
    const { live, b, sessions } = twoSessions();
    sessions.setInView(false);
    await turn(live, b, "one");
    await waitFor(() => expect(live.called("turn_ended")).toHaveLength(1));
    expect(live.called("turn_ended")[0]).toMatchObject({ sessionId: "b", shown: false });
    await waitFor(() => expect(b.marker).toBe("done"));
    // Coming back to the session is seeing it.
    sessions.setInView(true);
    expect(b.marker).toBeNull();
  });

  it("names a session as its sidebar row does: the engine's title, else the first prompt, else New session", async () => {
    const { live, a, sessions } = twoSessions();
    expect(sessions.titleOf(a)).toBe("New session");
    a.remember("/compact");
    a.remember("fix the parser");
    expect(sessions.titleOf(a)).toBe("fix the parser");
    sessions.noteListed([sessionSummary("a", { title: "", named: false })]);
    expect(sessions.titleOf(a)).toBe("fix the parser");
    sessions.noteListed([sessionSummary("a", { title: "Parser work", named: true })]);
    expect(sessions.titleOf(a)).toBe("Parser work");
    await turn(live, a, "go on");
    await waitFor(() => expect(live.called("turn_ended")).toHaveLength(1));
    expect(live.called("turn_ended")[0]!.title).toBe("Parser work");
  });

  it("clears a marker when its session is opened (the shown one again too) and when the window gets the focus back", () => {
    const { a, b, sessions } = twoSessions();
    a.marker = "done";
    b.marker = "failed";
    sessions.activate("a");
    expect(a.marker).toBeNull();
    expect(b.marker).toBe("failed");

    a.marker = "failed";
    sessions.activate("a");
    expect(a.marker).toBeNull();

    a.marker = "done";
    sessions.looked();
    expect(a.marker).toBeNull();
    expect(b.marker).toBe("failed");

    // Settings cover the session: the window's focus alone does not show it.
    a.marker = "done";
    sessions.setInView(false);
    sessions.looked();
    expect(a.marker).toBe("done");
  });

  it("announces each new permission request, in whichever session it waits", async () => {
    const { live, a } = twoSessions();
    a.submit("clean up");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    live.turns[0]!.send(queued("tu-r-bash", 1, false, "Bash", "Bash git status && rm -rf build"));
    live.turns[0]!.send({ type: "permission_requested", request: bashRequest() });
    await waitFor(() => expect(announcer.text).toBe("clean up: approval needed: Bash git status && rm -rf build"));
  });
});

/** The whole app against a shell that gives each new session its own id and lists `listings`. */
function app(handlers: Record<string, Handler> = {}, listings: Record<string, TranscriptSummary[]> = {}) {
  let started = 0;
  const live = liveSession(sessionInfo(), {
    get_app_state: () => ({ ...appState(), recent_projects: [ALPHA] }),
    open_project: ({ path }) => ({ ...projectInfo(String(path)), sessions: listings[String(path)] ?? [] }),
    start_session: ({ projectPath, resume }) =>
      sessionInfo({ session_id: (resume as string | null) ?? `new-${++started}`, project_path: String(projectPath) }),
    list_sessions: ({ projectPath }) => listings[String(projectPath)] ?? [],
    ...handlers,
  });
  const user = userEvent.setup();
  render(App);
  return { live, user };
}

const row = (id: string) => screen.getAllByTestId("sidebar-session").find((r) => r.dataset.sessionId === id)!;
const marker = (id: string) => within(row(id)).queryByTestId("session-marker");
const currentMarker = () => document.querySelector("[data-testid='sidebar-session'][aria-current='true'] [data-testid='session-marker']");
const shownPrompt = () => {
  const shown = screen.getAllByTestId("session-view").find((s) => !s.hidden)!;
  return within(shown).getByTestId("prompt-input") as HTMLTextAreaElement;
};
const turnOf = (live: Live, sessionId: string, nth = 0) => {
  const indices = live.called("send_prompt").flatMap((a, i) => (a.sessionId === sessionId ? [i] : []));
  return live.turns[indices[nth]!]!;
};

describe("The sidebar's marker and the live region", () => {
  it("marks a session whose turn ended while another showed, until its row is clicked; the live region says it", async () => {
    const { live, user } = app();
    await user.click(await screen.findByTestId("sidebar-new-session"));
    await waitFor(() => expect(row("new-1")).toBeTruthy());
    await user.type(shownPrompt(), "fix the parser{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    await user.click(screen.getByTestId("sidebar-new-session"));
    await waitFor(() => expect(row("new-2").getAttribute("aria-current")).toBe("true"));

    turnOf(live, "new-1").finish();
    await waitFor(() => expect(marker("new-1")?.textContent).toBe("done"));
    expect(live.called("turn_ended")).toEqual([{ sessionId: "new-1", title: "fix the parser", end: "end_turn", error: null, shown: false }]);
    expect(marker("new-1")?.className).toContain("done");
    expect(marker("new-2")).toBeNull();
    const region = screen.getByTestId("live-announcer");
    expect(region.getAttribute("role")).toBe("status");
    expect(region.getAttribute("aria-live")).toBe("polite");
    expect(region.textContent).toBe("fix the parser: done.");

    await user.click(within(row("new-1")).getByTestId("sidebar-session-title"));
    expect(row("new-1").getAttribute("aria-current")).toBe("true");
    expect(marker("new-1")).toBeNull();
  });

  it("marks the shown session when the window was in the background; clicking its row's title or focusing the window clears it", async () => {
    const { live, user } = app({ turn_ended: () => false }, { [ALPHA]: [sessionSummary("a1", { title: "Fix the parser", named: true })] });
    await waitFor(() => expect(row("a1")).toBeTruthy());
    await user.click(row("a1"));
    await waitFor(() => expect(row("a1").getAttribute("aria-current")).toBe("true"));

    await user.type(shownPrompt(), "go{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    turnOf(live, "a1").finish();
    await waitFor(() => expect(currentMarker()?.textContent).toBe("done"));
    expect(live.called("turn_ended")).toEqual([{ sessionId: "a1", title: "Fix the parser", end: "end_turn", error: null, shown: true }]);
    expect(screen.getByTestId("live-announcer").textContent).toContain("done");
    await user.click(within(row("a1")).getByTestId("sidebar-session-title"));
    expect(currentMarker()).toBeNull();

    await user.type(shownPrompt(), "again{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(2));
    turnOf(live, "a1", 1).finish("error", "the API answered 529 overloaded");
    await waitFor(() => expect(currentMarker()?.textContent).toBe("failed"));
    expect(currentMarker()?.className).toContain("failed");
    expect(screen.getByTestId("live-announcer").textContent).toBe("Fix the parser: failed: the API answered 529 overloaded.");
    fireEvent.focus(window);
    await waitFor(() => expect(currentMarker()).toBeNull());
  });

  it("counts the shown session as not shown while Settings cover it; closing Settings is seeing it", async () => {
    const { live, user } = app();
    await user.click(await screen.findByTestId("sidebar-new-session"));
    await waitFor(() => expect(row("new-1")).toBeTruthy());
    await user.type(shownPrompt(), "one{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    await user.click(screen.getByTestId("open-settings"));

    turnOf(live, "new-1").finish();
    await waitFor(() => expect(currentMarker()?.textContent).toBe("done"));
    expect(live.called("turn_ended")).toEqual([{ sessionId: "new-1", title: "one", end: "end_turn", error: null, shown: false }]);
    await user.click(screen.getByTestId("settings-close"));
    expect(currentMarker()).toBeNull();
  });

  it("shows the session of a clicked notice in front of Settings, its marker gone; a notice of a closed session changes nothing", async () => {
    let clicks: Channel<AttentionEvent> | null = null;
    const { live, user } = app({
      turn_ended: () => false,
      watch_attention: ({ onEvent }) => {
        clicks = onEvent as Channel<AttentionEvent>;
        return null;
      },
    });
    await user.click(await screen.findByTestId("sidebar-new-session"));
    await waitFor(() => expect(row("new-1")).toBeTruthy());
    await user.type(shownPrompt(), "one{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    await user.click(screen.getByTestId("sidebar-new-session"));
    await waitFor(() => expect(row("new-2").getAttribute("aria-current")).toBe("true"));
    turnOf(live, "new-1").finish();
    await waitFor(() => expect(marker("new-1")?.textContent).toBe("done"));
    await user.click(screen.getByTestId("open-settings"));
    expect(screen.getByTestId("settings-close")).toBeTruthy();
    expect(live.called("watch_attention")).toHaveLength(1);

    clicks!.onmessage({ type: "show_session", session_id: "gone" });
    await settle();
    expect(screen.getByTestId("settings-close")).toBeTruthy();

    clicks!.onmessage({ type: "show_session", session_id: "new-1" });
    await waitFor(() => expect(row("new-1").getAttribute("aria-current")).toBe("true"));
    expect(screen.queryByTestId("settings-close")).toBeNull();
    expect(marker("new-1")).toBeNull();
  });

  it("says running while a queued prompt's turn runs, then how the last turn ended", async () => {
    const { live, user } = app({ turn_ended: () => false });
    await user.click(await screen.findByTestId("sidebar-new-session"));
    await waitFor(() => expect(row("new-1")).toBeTruthy());
    await user.type(shownPrompt(), "one{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    await user.type(shownPrompt(), "two{Enter}");

    turnOf(live, "new-1").finish();
    await waitFor(() => expect(live.turns).toHaveLength(2));
    await waitFor(() => expect(live.called("turn_ended")).toHaveLength(1));
    await settle();
    expect(within(row("new-1")).getByTestId("badge-running")).toBeTruthy();
    expect(marker("new-1")).toBeNull();

    turnOf(live, "new-1", 1).finish("max_turns");
    await waitFor(() => expect(marker("new-1")?.textContent).toBe("failed"));
    expect(within(row("new-1")).queryByTestId("badge-running")).toBeNull();
  });

  it("tells screen readers of a permission request in a session not shown", async () => {
    const { live, user } = app();
    await user.click(await screen.findByTestId("sidebar-new-session"));
    await waitFor(() => expect(row("new-1")).toBeTruthy());
    await user.type(shownPrompt(), "clean up{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    await user.click(screen.getByTestId("sidebar-new-session"));
    await waitFor(() => expect(row("new-2").getAttribute("aria-current")).toBe("true"));

    const hidden = turnOf(live, "new-1");
    hidden.send(queued("tu-r-bash", 1, false, "Bash", "Bash git status && rm -rf build"));
    hidden.send({ type: "permission_requested", request: bashRequest() });
    await waitFor(() =>
      expect(screen.getByTestId("live-announcer").textContent).toBe("clean up: approval needed: Bash git status && rm -rf build"),
    );
  });
});

describe("Settings: which ended turns are notified", () => {
  it("offers every turn, failures and stops, or never, and saves the choice at once with the settings as stored", async () => {
    const ipc = mockSettings({ save_settings: (args) => args.settings });
    const onchanged = vi.fn();
    const user = userEvent.setup();
    render(SettingsPanel, { app: appState(), onchanged, onclose: vi.fn() });
    const select = screen.getByTestId("settings-turn-end-notices") as HTMLSelectElement;
    expect(select.closest("label")?.textContent).toContain("Notify when a turn ends elsewhere");
    expect([...select.options].map((o) => [o.value, o.textContent])).toEqual([
      ["all", "Every turn"],
      ["failures", "Only failures and stops"],
      ["off", "Never"],
    ]);
    expect(select.value).toBe("all");

    // A model typed but not saved does not go with it.
    await user.type(screen.getByTestId("settings-model"), "claude-big");
    await user.selectOptions(select, "Only failures and stops");
    await waitFor(() => expect(ipc.called("save_settings")).toEqual([{ settings: { ...appState().settings, turn_end_notices: "failures" } }]));
    expect(await within(screen.getByTestId("settings-section-notifications")).findByText("Saved.")).toBeTruthy();
    expect(onchanged).toHaveBeenCalledOnce();

    // The one Save of the other settings keeps the choice.
    await user.click(screen.getByTestId("settings-save"));
    await waitFor(() => expect(ipc.called("save_settings")).toHaveLength(2));
    expect(ipc.called("save_settings")[1]).toEqual({ settings: { ...appState().settings, model: "claude-big", turn_end_notices: "failures" } });
  });

  it("puts the stored choice back when the engine refuses it, and says why", async () => {
    mockSettings({ save_settings: () => Promise.reject("the settings file is read-only") });
    const onchanged = vi.fn();
    const user = userEvent.setup();
    render(SettingsPanel, { app: appState(), onchanged, onclose: vi.fn() });
    const select = screen.getByTestId("settings-turn-end-notices") as HTMLSelectElement;
    await user.selectOptions(select, "Never");
    const section = screen.getByTestId("settings-section-notifications");
    expect((await within(section).findByRole("alert")).textContent).toContain("the settings file is read-only");
    expect(select.value).toBe("all");
    expect(onchanged).not.toHaveBeenCalled();
  });
});
