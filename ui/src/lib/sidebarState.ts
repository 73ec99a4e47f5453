// Whether the sessions sidebar is hidden: as the user left it (kept in the settings,
// `sidebar_collapsed`, and restored at the next start), else by the window's width.
import type { AppSettings } from "../bindings/AppSettings";

/** Below this window width the sidebar starts collapsed, unless the user left it otherwise. */
export const NARROW_WIDTH = 900;

/** Whether the sidebar starts collapsed: a saved choice wins; without one (null), a narrow window. */
export function startsCollapsed(saved: boolean | null, windowWidth: number): boolean {
  return saved ?? windowWidth < NARROW_WIDTH;
}

/** The settings to save when the user hid or showed the sidebar: the ones given, that one changed. */
export function withSidebar(settings: AppSettings, collapsed: boolean): AppSettings {
  return { ...settings, sidebar_collapsed: collapsed };
}
