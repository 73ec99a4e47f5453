// The small decisions behind the app's frame: what an ask from outside the window does, and
// whether the sessions sidebar starts hidden (and what is saved when the user hides it).
import { describe, expect, it, vi } from "vitest";
import type { AppSettings } from "../bindings/AppSettings";
import { onAttention, type AttentionActions } from "../lib/attention";
import { NARROW_WIDTH, startsCollapsed, withSidebar } from "../lib/sidebarState";
import { appState } from "./live";

/** Actions that record what was asked, with `live` the live sessions. */
function actions(live: string[] = []) {
  const act = {
    isLive: (id: string) => live.includes(id),
    show: vi.fn<(sessionId: string) => void>(),
    openFolder: vi.fn<(path: string) => void>(),
  };
  return act satisfies AttentionActions;
}

describe("an ask from outside the window", () => {
  it("shows the session of a clicked notice while it is live", () => {
    const act = actions(["s1"]);
    onAttention({ type: "show_session", session_id: "s1" }, act);
    onAttention({ type: "show_session", session_id: "closed" }, act);
    expect(act.show.mock.calls).toEqual([["s1"]]);
    expect(act.openFolder).not.toHaveBeenCalled();
  });

  it("opens a folder named on the command line", () => {
    const act = actions();
    onAttention({ type: "open_folder", path: "/home/me/projects/alpha" }, act);
    expect(act.openFolder.mock.calls).toEqual([["/home/me/projects/alpha"]]);
    expect(act.show).not.toHaveBeenCalled();
  });
});

describe("the sidebar's state", () => {
  it("starts as the user left it, whatever the width; unsaved, collapsed only when narrow", () => {
    expect(startsCollapsed(true, 1600)).toBe(true);
    expect(startsCollapsed(false, 600)).toBe(false);
    expect(startsCollapsed(null, NARROW_WIDTH - 1)).toBe(true);
    expect(startsCollapsed(null, NARROW_WIDTH)).toBe(false);
  });

  it("is saved with the rest of the settings untouched", () => {
    const settings: AppSettings = { ...appState().settings, model: "claude-big", shortcuts: { "palette.open": "Ctrl+P" }, update_feed_url: "https://x.example/feed.json" };
    expect(withSidebar(settings, true)).toEqual({ ...settings, sidebar_collapsed: true });
    expect(settings.sidebar_collapsed).toBeNull();
  });
});
