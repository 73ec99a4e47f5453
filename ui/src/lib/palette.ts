// What the command palette offers, as plain data built from what the App knows: the live sessions
// (switch to), the active project's saved sessions (resume), recent projects, the Settings
// sections, the active session's slash commands and the registry's actions. Choosing an item runs
// its `run`; the App supplies what each kind does.
import type { SlashCommand } from "../bindings/SlashCommand";
import type { TranscriptSummary } from "../bindings/TranscriptSummary";
import { SECTIONS, type SectionId } from "./components/settings/sections";
import { rowTitle } from "./components/sidebar/rows";
import { ACTIONS, type ActionId } from "./shortcuts";
import { splitProjectPath } from "./title";

export type PaletteKind = "session" | "project" | "settings" | "command" | "action";

/** What the item's chip says its kind is. */
export const KIND_LABELS: Record<PaletteKind, string> = {
  session: "Session",
  project: "Project",
  settings: "Settings",
  command: "Command",
  action: "Action",
};

export interface PaletteItem {
  kind: PaletteKind;
  /** The session id, project path, section id, command name or action id. */
  id: string;
  label: string;
  /** Quiet words after the label (the project, "approval waits", a command's description). */
  detail: string;
  /** An action's keys as shown ("Ctrl+Shift+N"), "" for none. */
  keys: string;
  run: () => void;
}

/** A live session as the palette lists it. */
export interface LiveEntry {
  id: string;
  title: string;
  projectPath: string;
  waiting: number;
}

export interface PaletteSources {
  /** The live sessions in the sidebar's order. */
  live: LiveEntry[];
  /** The shown session, if any. */
  shownId: string | null;
  /** The active project's saved sessions (the live ones are left out here). */
  saved: { projectPath: string; sessions: TranscriptSummary[] } | null;
  recent: string[];
  /** The active session's slash commands (none without one). */
  commands: SlashCommand[];
  /** Whether an action can run now (a session's panels need a session). */
  available: (id: ActionId) => boolean;
  keysOf: (id: ActionId) => string;
  onshow: (id: string) => void;
  onresume: (projectPath: string, id: string) => void;
  onproject: (path: string) => void;
  onsettings: (section: SectionId) => void;
  oncommand: (name: string) => void;
  onaction: (id: ActionId) => void;
}

/** The items in the order shown before anything is typed. */
export function paletteItems(src: PaletteSources): PaletteItem[] {
  const liveIds = new Set(src.live.map((s) => s.id));
  const sessions: PaletteItem[] = src.live.map((s) => ({
    kind: "session",
    id: s.id,
    label: s.title,
    detail: [splitProjectPath(s.projectPath).name, s.id === src.shownId ? "shown" : "", s.waiting > 0 ? "approval waits" : ""].filter(Boolean).join(" · "),
    keys: "",
    run: () => src.onshow(s.id),
  }));
  const actions: PaletteItem[] = ACTIONS.filter((a) => a.palette && src.available(a.id)).map((a) => ({
    kind: "action",
    id: a.id,
    label: a.label,
    detail: a.group,
    keys: src.keysOf(a.id),
    run: () => src.onaction(a.id),
  }));
  const saved = src.saved;
  const resumable: PaletteItem[] = saved
    ? saved.sessions
        .filter((s) => !liveIds.has(s.session_id))
        .map((s) => ({
          kind: "session",
          id: s.session_id,
          label: rowTitle(s.title),
          detail: `${splitProjectPath(saved.projectPath).name} · resume`,
          keys: "",
          run: () => src.onresume(saved.projectPath, s.session_id),
        }))
    : [];
  const projects: PaletteItem[] = src.recent.map((path) => ({
    kind: "project",
    id: path,
    label: splitProjectPath(path).name,
    detail: path,
    keys: "",
    run: () => src.onproject(path),
  }));
  const settings: PaletteItem[] = SECTIONS.map((s) => ({
    kind: "settings",
    id: s.id,
    label: s.title,
    detail: "Settings",
    keys: "",
    run: () => src.onsettings(s.id),
  }));
  const commands: PaletteItem[] = src.commands.map((c) => ({
    kind: "command",
    id: c.name,
    label: `/${c.name}`,
    detail: c.description,
    keys: "",
    run: () => src.oncommand(c.name),
  }));
  return [...sessions, ...actions, ...resumable, ...projects, ...settings, ...commands];
}

/** What the filter matches an item by: its label, then (whole words only) its detail and kind. */
export const paletteText = (item: PaletteItem): [string, string] => [item.label, `${item.detail} ${KIND_LABELS[item.kind]}`];
