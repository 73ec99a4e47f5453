// The whole App against a mocked shell, for the keyboard's tests (the palette, the keys that
// switch sessions, Settings → Keyboard): new sessions are numbered `new-1`, `new-2`…, a resumed
// one keeps its id, the projects list what `listings` says, the settings saved are the settings
// the app state gives from then on (as the engine does).
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import { expect } from "vitest";
import App from "../App.svelte";
import type { AppSettings } from "../bindings/AppSettings";
import type { SlashCommand } from "../bindings/SlashCommand";
import type { TranscriptSummary } from "../bindings/TranscriptSummary";
import { appState, liveSession, projectInfo, sessionInfo, type Handler } from "./live";

export const ALPHA = "/home/me/projects/alpha";
export const BETA = "/home/me/projects/beta";

export interface KeysAppOptions {
  listings?: Record<string, TranscriptSummary[]>;
  commands?: SlashCommand[];
  recent?: string[];
  handlers?: Record<string, Handler>;
}

export function keysApp({ listings = {}, commands = [], recent = [ALPHA], handlers = {} }: KeysAppOptions = {}) {
  let started = 0;
  let settings: AppSettings = appState().settings;
  const live = liveSession(sessionInfo(), {
    get_app_state: () => ({ ...appState(), settings, recent_projects: recent }),
    save_settings: (args) => (settings = args.settings as AppSettings),
    open_project: ({ path }) => ({ ...projectInfo(String(path)), sessions: listings[String(path)] ?? [] }),
    start_session: ({ projectPath, resume }) =>
      sessionInfo({ session_id: (resume as string | null) ?? `new-${++started}`, project_path: String(projectPath) }),
    list_sessions: ({ projectPath }) => listings[String(projectPath)] ?? [],
    list_commands: () => commands,
    ...handlers,
  });
  const user = userEvent.setup();
  render(App);
  return { live, user };
}

export const rows = () => screen.getAllByTestId("sidebar-session");
export const row = (id: string) => rows().find((r) => r.dataset.sessionId === id)!;
export const view = (id: string) => screen.getAllByTestId("session-view").find((v) => v.dataset.sessionId === id)!;
/** The session the main area shows (none while something covers it). */
export const shownId = () => {
  if (screen.getByTestId("main-screen").hidden) return null;
  return screen.getAllByTestId("session-view").find((v) => !v.hidden)?.dataset.sessionId ?? null;
};
export const promptOf = (id: string) => within(view(id)).getByTestId("prompt-input") as HTMLTextAreaElement;

/** Starts `n` sessions in the first project with the sidebar's New session; the last one shows. */
export async function startSessions(user: ReturnType<typeof userEvent.setup>, n: number) {
  for (let i = 1; i <= n; i++) {
    await user.click((await screen.findAllByTestId("sidebar-new-session"))[0]!);
    await waitFor(() => expect(row(`new-${i}`)?.getAttribute("aria-current")).toBe("true"));
  }
}
