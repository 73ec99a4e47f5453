// The command palette: Ctrl+K (or the sidebar's button) opens it over whatever shows; typing
// filters sessions, projects, Settings sections, the session's slash commands and the registry's
// actions; Up/Down/Enter, a click or Escape; each item says its kind, an action its keys.
import { afterEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/svelte";
import { fuzzyFilter, fuzzyScore } from "../lib/fuzzy";
import { sessionSummary } from "./fixtures";
import { ALPHA, BETA, keysApp, promptOf, row, shownId, startSessions, view } from "./keysApp";

afterEach(() => {
  vi.restoreAllMocks();
});

const palette = () => screen.queryByTestId("command-palette");
const input = () => screen.getByTestId("palette-input") as HTMLInputElement;
const items = () => screen.queryAllByTestId("palette-item");
const item = (kind: string, id: string) => items().find((i) => i.dataset.kind === kind && i.dataset.id === id);
const selectedItem = () => items().find((i) => i.getAttribute("aria-selected") === "true");

const listings = {
  [ALPHA]: [
    sessionSummary("new-1", { title: "Fix the parser", modified_ms: 3_000 }),
    sessionSummary("new-2", { title: "Write the docs", modified_ms: 2_000 }),
    sessionSummary("old-1", { title: "Old work on the lexer", modified_ms: 1_000 }),
  ],
};
const commands = [
  { name: "compact", description: "Summarise the conversation", argument_hint: "[instructions]", source: "builtin" as const },
  { name: "review", description: "Review the changes", argument_hint: null, source: "project" as const },
];

/** Two live sessions in ALPHA (new-2 shows), a saved one, and a second recent project. */
async function twoSessions() {
  const app = keysApp({ listings, commands, recent: [ALPHA, BETA] });
  await startSessions(app.user, 2);
  await waitFor(() => expect(row("new-1").textContent).toContain("Fix the parser"));
  return app;
}

async function openWithKeys(user: Awaited<ReturnType<typeof twoSessions>>["user"]) {
  await user.keyboard("{Control>}k{/Control}");
  await waitFor(() => expect(palette()).toBeTruthy());
}

describe("The fuzzy filter", () => {
  it("finds words whole or as letters in order, best first, and case does not matter", () => {
    expect(fuzzyScore("term", "Show or hide the terminal")).not.toBeNull();
    expect(fuzzyScore("hidterm", "Show or hide the terminal")).not.toBeNull();
    expect(fuzzyScore("mret", "Show or hide the terminal")).toBeNull();
    // A word found only in the quieter words must be whole there.
    expect(fuzzyScore("alpha", "Fix the parser", "alpha · shown")).not.toBeNull();
    expect(fuzzyScore("ahp", "Fix the parser", "alpha · shown")).toBeNull();
    const names = ["Open the saved outputs", "Open Settings", "Settings"];
    expect(fuzzyFilter(names, "settings", (n) => [n, ""])).toEqual(["Settings", "Open Settings"]);
    expect(fuzzyFilter(names, "", (n) => [n, ""])).toEqual(names);
  });
});

describe("The command palette", () => {
  it("opens with Ctrl+K with the field focused, lists each kind with its chip and an action's keys, and Escape closes it", async () => {
    const { user, live } = await twoSessions();
    const before = promptOf("new-2");
    before.focus();
    await openWithKeys(user);
    const dialog = palette()!;
    expect(dialog.getAttribute("role")).toBe("dialog");
    expect(dialog.getAttribute("aria-modal")).toBe("true");
    expect(document.activeElement).toBe(input());
    expect(within(dialog).getByRole("listbox")).toBeTruthy();
    // The saved sessions come once the project is listed.
    await waitFor(() => expect(item("session", "old-1")).toBeTruthy());

    const kinds = new Set(items().map((i) => i.dataset.kind));
    expect([...kinds].sort()).toEqual(["action", "command", "project", "session", "settings"]);
    expect(items().slice(0, 2).map((i) => i.dataset.id)).toEqual(["new-1", "new-2"]);
    expect(within(item("session", "new-1")!).getByTestId("palette-item-kind").textContent).toBe("Session");
    expect(within(item("action", "session.new")!).getByTestId("palette-item-keys").textContent).toBe("Ctrl+Shift+N");
    expect(within(item("action", "terminal.toggle")!).getByTestId("palette-item-keys").textContent).toBe("Ctrl+`");
    expect(item("project", BETA)).toBeTruthy();
    expect(item("settings", "keyboard")).toBeTruthy();
    expect(item("command", "review")).toBeTruthy();
    // Nothing waits: no jump to an approval on offer.
    expect(item("action", "approval.jump")).toBeUndefined();

    // Escape closes it (and stops no turn); the focus goes back where it was.
    await user.keyboard("{Escape}");
    await waitFor(() => expect(palette()).toBeNull());
    expect(document.activeElement).toBe(before);
    expect(live.called("abort_turn")).toEqual([]);
    expect(shownId()).toBe("new-2");
  });

  it("filters as the user types and switches to a live session with Enter", async () => {
    const { user } = await twoSessions();
    await openWithKeys(user);
    await user.keyboard("parser");
    await waitFor(() => expect(items()[0]?.dataset.id).toBe("new-1"));
    expect(items().map((i) => i.dataset.id)).not.toContain("new-2");
    expect(selectedItem()?.dataset.id).toBe("new-1");
    await user.keyboard("{Enter}");
    await waitFor(() => expect(palette()).toBeNull());
    expect(shownId()).toBe("new-1");
    expect(row("new-1").getAttribute("aria-current")).toBe("true");
  });

  it("moves with Up and Down, wrapping, and says when nothing matches", async () => {
    const { user } = await twoSessions();
    await openWithKeys(user);
    expect(selectedItem()?.dataset.id).toBe("new-1");
    await user.keyboard("{ArrowDown}");
    expect(selectedItem()?.dataset.id).toBe("new-2");
    await user.keyboard("{ArrowUp}{ArrowUp}");
    expect(selectedItem()).toBe(items().at(-1));
    await user.keyboard("zzqqxx");
    await waitFor(() => expect(screen.getByTestId("palette-empty").textContent).toBe("Nothing matches."));
    expect(items()).toEqual([]);
  });

  it("resumes a saved session of the active project, the way the sidebar does", async () => {
    const { user, live } = await twoSessions();
    await openWithKeys(user);
    await user.keyboard("lexer");
    await waitFor(() => expect(items()[0]?.dataset.id).toBe("old-1"));
    await user.click(items()[0]!);
    await waitFor(() => expect(shownId()).toBe("old-1"));
    expect(live.called("start_session").at(-1)).toEqual({ projectPath: ALPHA, resume: "old-1" });
  });

  it("opens a recent project the way the project picker does (no sessions: one starts)", async () => {
    const { user, live } = await twoSessions();
    await openWithKeys(user);
    await user.keyboard("beta");
    await waitFor(() => expect(items()[0]?.dataset.kind).toBe("project"));
    await user.keyboard("{Enter}");
    await waitFor(() => expect(shownId()).toBe("new-3"));
    expect(live.called("open_project").at(-1)).toEqual({ path: BETA });
    expect(live.called("start_session").at(-1)).toEqual({ projectPath: BETA, resume: null });
  });

  it("opens Settings at a section", async () => {
    const { user } = await twoSessions();
    await openWithKeys(user);
    await user.keyboard("keyboard");
    await waitFor(() => expect(items()[0]?.dataset.id).toBe("keyboard"));
    expect(items()[0]!.dataset.kind).toBe("settings");
    await user.click(items()[0]!);
    expect(await screen.findByTestId("settings-panel")).toBeTruthy();
    expect(screen.getByTestId("settings-nav-keyboard").getAttribute("aria-current")).toBe("true");
    expect(document.activeElement).toBe(within(screen.getByTestId("settings-section-keyboard")).getByRole("heading", { level: 3 }));
  });

  it("puts a slash command into the active session's prompt box, a draft kept after it", async () => {
    const { user } = await twoSessions();
    await user.type(promptOf("new-2"), "the parser");
    await openWithKeys(user);
    await user.keyboard("review");
    await waitFor(() => expect(items()[0]?.dataset.kind).toBe("command"));
    expect(within(items()[0]!).getByTestId("palette-item-label").textContent).toBe("/review");
    await user.keyboard("{Enter}");
    await waitFor(() => expect(palette()).toBeNull());
    const box = promptOf("new-2");
    expect(box.value).toBe("/review the parser");
    await waitFor(() => expect(document.activeElement).toBe(box));
    expect(box.selectionStart).toBe("/review ".length);
    // The command menu stays closed: the name is complete.
    expect(screen.queryByTestId("command-menu")).toBeNull();
  });

  it("runs an action of the session's screen (the prompts) and one of the app's (a new session)", async () => {
    const { user, live } = await twoSessions();
    await openWithKeys(user);
    await user.keyboard("prompts");
    await waitFor(() => expect(items()[0]?.dataset.id).toBe("prompts.toggle"));
    await user.keyboard("{Enter}");
    await waitFor(() => expect(within(view("new-2")).getByTestId("prompt-navigator")).toBeTruthy());

    const startsBefore = live.called("start_session").length;
    await user.click(screen.getByTestId("sidebar-palette"));
    await waitFor(() => expect(palette()).toBeTruthy());
    await user.keyboard("new session");
    await waitFor(() => expect(items()[0]?.dataset.id).toBe("session.new"));
    await user.keyboard("{Enter}");
    await waitFor(() => expect(shownId()).toBe("new-3"));
    expect(live.called("start_session").slice(startsBefore)).toEqual([{ projectPath: ALPHA, resume: null }]);
  });

  it("runs a session's action from Settings: Settings close and the session's panel opens", async () => {
    const { user } = await twoSessions();
    await user.click(screen.getByTestId("open-settings"));
    await screen.findByTestId("settings-panel");
    await openWithKeys(user);
    await user.keyboard("find");
    await waitFor(() => expect(items()[0]?.dataset.id).toBe("find.open"));
    await user.keyboard("{Enter}");
    await waitFor(() => expect(within(view("new-2")).getByTestId("find-bar")).toBeTruthy());
    expect(screen.queryByTestId("settings-panel")).toBeNull();
  });

  it("closes with a click outside, and Ctrl+K again closes it", async () => {
    const { user } = await twoSessions();
    await openWithKeys(user);
    await user.click(screen.getByTestId("command-palette-backdrop"));
    await waitFor(() => expect(palette()).toBeNull());
    await openWithKeys(user);
    await user.keyboard("{Control>}k{/Control}");
    await waitFor(() => expect(palette()).toBeNull());
    expect(shownId()).toBe("new-2");
  });
});
