// The whole app at start and when asked from outside it: a newer release found at start is said in
// a banner (nothing else is), the sidebar comes back as the user left it (saved with the
// settings), and a folder named on the command line opens as the project picker opens one.
import { afterEach, describe, expect, it } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import type { Channel } from "@tauri-apps/api/core";
import App from "../App.svelte";
import type { AppSettings } from "../bindings/AppSettings";
import type { AttentionEvent } from "../bindings/AttentionEvent";
import type { UpdateStatus } from "../bindings/UpdateStatus";
import { sessionSummary } from "./fixtures";
import { appState, liveSession, projectInfo, sessionInfo, type Handler } from "./live";

const ALPHA = "/home/me/projects/alpha";
const BETA = "/home/me/projects/beta";
const FEED = "https://nerve.example.com/latest.json";
const settle = () => new Promise((r) => setTimeout(r, 50));

const newer: UpdateStatus = {
  state: "newer",
  current: "0.1.0",
  latest: "0.2.0",
  url: "https://nerve.example.com/releases/0.2.0",
  notes: null,
  how: "sudo apt update && sudo apt upgrade nerve",
};

/** The app against a shell whose settings start as `settings` and are stored as saved; new
 *  sessions are numbered; `sessions` lists each project's saved ones. */
function app(settings: Partial<AppSettings> = {}, handlers: Record<string, Handler> = {}, sessions: Record<string, string[]> = {}) {
  let stored: AppSettings = { ...appState().settings, ...settings };
  let started = 0;
  let attention: Channel<AttentionEvent> | null = null;
  const live = liveSession(sessionInfo(), {
    get_app_state: () => ({ ...appState(), settings: stored, recent_projects: [ALPHA] }),
    save_settings: (args) => (stored = args.settings as AppSettings),
    open_project: ({ path }) => ({ ...projectInfo(String(path)), sessions: (sessions[String(path)] ?? []).map((id) => sessionSummary(id)) }),
    start_session: ({ projectPath, resume }) =>
      sessionInfo({ session_id: (resume as string | null) ?? `new-${++started}`, project_path: String(projectPath) }),
    watch_attention: ({ onEvent }) => {
      attention = onEvent as Channel<AttentionEvent>;
      return null;
    },
    ...handlers,
  });
  const user = userEvent.setup();
  render(App);
  return {
    live,
    user,
    stored: () => stored,
    /** The shell asks from outside (once the app follows its asks). */
    ask: async (event: AttentionEvent) => {
      await waitFor(() => expect(attention).not.toBeNull());
      attention!.onmessage(event);
    },
  };
}

describe("The update notice at start", () => {
  it("says a newer release with how to get it and its page, and goes when dismissed", async () => {
    const { live, user } = app({ update_feed_url: FEED }, { check_for_update: () => newer });
    const banner = await screen.findByTestId("update-banner");
    expect(banner.getAttribute("role")).toBe("status");
    expect(within(banner).getByTestId("update-sentence").textContent).toBe("Nerve 0.2.0 is available (you have 0.1.0).");
    expect(within(banner).getByTestId("update-how").textContent).toBe("sudo apt update && sudo apt upgrade nerve");
    await user.click(within(banner).getByTestId("update-link"));
    expect(live.called("open_link")).toEqual([{ url: "https://nerve.example.com/releases/0.2.0" }]);

    await user.click(within(banner).getByTestId("update-dismiss"));
    expect(screen.queryByTestId("update-banner")).toBeNull();
    // Settings saved later read the app state again: no second check, no banner back.
    await user.click(screen.getByTestId("open-settings"));
    await user.selectOptions(screen.getByTestId("settings-turn-end-notices"), "off");
    await waitFor(() => expect(live.called("get_app_state")).toHaveLength(2));
    await settle();
    expect(live.called("check_for_update")).toHaveLength(1);
    expect(screen.queryByTestId("update-banner")).toBeNull();
  });

  const quiet: UpdateStatus[] = [
    { state: "current", version: "0.2.0" },
    { state: "failed", message: "the feed answered 404" },
  ];
  it.each(quiet)("says nothing at start when the answer is $state, which Settings say when asked", async (answer) => {
    const { live, user } = app({ update_feed_url: FEED }, { check_for_update: () => answer });
    await waitFor(() => expect(live.called("check_for_update")).toHaveLength(1));
    await settle();
    expect(screen.queryByTestId("update-banner")).toBeNull();
    await user.click(screen.getByTestId("open-settings"));
    await user.click(screen.getByTestId("check-updates"));
    expect((await screen.findByTestId("update-status")).dataset.state).toBe(answer.state);
  });

  it("does not check without a release feed", async () => {
    const { live } = app({}, { check_for_update: () => newer });
    await screen.findByTestId("sidebar");
    await settle();
    expect(live.called("check_for_update")).toEqual([]);
    expect(screen.queryByTestId("update-banner")).toBeNull();
  });
});

describe("The sidebar's saved state", () => {
  const width = window.innerWidth;
  afterEach(() => {
    window.innerWidth = width;
  });
  const toggle = () => screen.findByTestId("sidebar-toggle");

  it("starts hidden when the user left it so, even in a wide window, and saves it shown", async () => {
    window.innerWidth = 1600;
    const { live, user, stored } = app({ sidebar_collapsed: true, model: "claude-big", update_feed_url: FEED }, { check_for_update: () => ({ state: "off" }) });
    expect((await toggle()).getAttribute("aria-label")).toBe("Show sessions");
    expect(screen.queryByTestId("sidebar-search")).toBeNull();

    await user.click(await toggle());
    expect(screen.getByTestId("sidebar-search")).toBeTruthy();
    await waitFor(() => expect(live.called("save_settings")).toHaveLength(1));
    // The whole settings as stored, only the sidebar's field changed.
    expect(live.called("save_settings")[0]).toEqual({
      settings: { ...appState().settings, model: "claude-big", update_feed_url: FEED, sidebar_collapsed: false },
    });
    expect(stored().sidebar_collapsed).toBe(false);
  });

  it("starts shown when the user left it so, even in a narrow window", async () => {
    window.innerWidth = 700;
    app({ sidebar_collapsed: false });
    expect((await toggle()).getAttribute("aria-label")).toBe("Hide sessions");
    expect(screen.getByTestId("sidebar-search")).toBeTruthy();
  });

  it("keeps what the toggle saved when Settings save something else afterwards", async () => {
    window.innerWidth = 1600;
    const { live, user } = app();
    await user.click(await screen.findByTestId("open-settings"));
    await user.click(await toggle());
    await waitFor(() => expect(live.called("save_settings")).toHaveLength(1));
    expect((live.called("save_settings")[0]!.settings as AppSettings).sidebar_collapsed).toBe(true);

    await user.selectOptions(screen.getByTestId("settings-turn-end-notices"), "failures");
    await waitFor(() => expect(live.called("save_settings")).toHaveLength(2));
    expect(live.called("save_settings")[1]).toEqual({ settings: { ...appState().settings, turn_end_notices: "failures", sidebar_collapsed: true } });
  });
});

describe("A folder named from outside", () => {
  it("opens as a project in front of Settings: a new session when it has none", async () => {
    const { live, user, ask } = app();
    await user.click(await screen.findByTestId("open-settings"));
    expect(screen.getByTestId("settings-panel")).toBeTruthy();

    await ask({ type: "open_folder", path: BETA });
    await waitFor(() => expect(live.called("start_session")).toEqual([{ projectPath: BETA, resume: null }]));
    expect(live.called("open_project")).toEqual([{ path: BETA }]);
    await screen.findByTestId("prompt-input");
    expect(screen.queryByTestId("settings-panel")).toBeNull();
    expect(screen.getAllByTestId("session-view").filter((v) => !v.hidden).map((v) => v.dataset.sessionId)).toEqual(["new-1"]);
  });

  it("offers its sessions to resume, as the picker does, in place of the session shown", async () => {
    const { live, user, ask } = app({}, {}, { [BETA]: ["b1"] });
    await user.click(await screen.findByTestId("sidebar-new-session"));
    await screen.findByTestId("prompt-input");

    await ask({ type: "open_folder", path: BETA });
    const picker = await screen.findByTestId("project-picker");
    expect(await within(picker).findAllByTestId("resume-session")).toHaveLength(1);
    expect(picker.textContent).toContain(BETA);
    expect(live.called("open_project").at(-1)).toEqual({ path: BETA });
  });
});
