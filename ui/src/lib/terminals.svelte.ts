// The user's terminals, per session: each tab owns its xterm.js instance and the channel its
// shell's output arrives on. They live here, not in a component, so that hiding the panel, showing
// another session or a session's screen being made afresh never loses a shell or its scrollback:
// output arriving meanwhile is written into the instance anyway, and a view shown again only moves
// the instance's element into its new place (xterm.js opens an instance once).
//
// A terminal is the user's own shell in the session's folder: not sandboxed, and never seen by the
// model (only a selection the user sends or attaches, through the prompt box).
import { FitAddon } from "@xterm/addon-fit";
import { WebLinksAddon } from "@xterm/addon-web-links";
import { Terminal, type ITheme } from "@xterm/xterm";
import type { TerminalEvent } from "../bindings/TerminalEvent";
import { errorText, openLink, terminalClose, terminalOpen, terminalResize, terminalWrite } from "./ipc";
import { keymap } from "./keymap.svelte";

/** Lines kept above the screen. */
export const SCROLLBACK = 5000;

/** The name a shell goes by in its tab: the last part of its path. */
export function shellName(shell: string): string {
  return shell.split(/[\\/]/).filter(Boolean).at(-1) ?? shell;
}

/** What an exited shell's tab says. */
export function exitText(code: number | null): string {
  return code === null ? "exited" : `exited (code ${code})`;
}

function cssVar(style: CSSStyleDeclaration, name: string): string | undefined {
  return style.getPropertyValue(name).trim() || undefined;
}

/** The terminal's colours from the app's palette (app.css), for the theme now on <html>. */
export function terminalTheme(): ITheme {
  const style = getComputedStyle(document.documentElement);
  const v = (name: string) => cssVar(style, name);
  const theme: ITheme = {
    background: v("--bg-code"),
    foreground: v("--fg"),
    cursor: v("--fg"),
    cursorAccent: v("--bg-code"),
    selectionBackground: v("--accent-bg"),
    red: v("--bad"),
    green: v("--ok"),
    yellow: v("--warn"),
    blue: v("--accent"),
    magenta: v("--hl-keyword"),
    cyan: v("--hl-meta"),
  };
  // xterm's white and bright white are for a dark background: on the light one they would vanish.
  if (document.documentElement.dataset.theme === "light") {
    theme.white = v("--muted");
    theme.brightWhite = v("--fg");
  }
  return theme;
}

function terminalFont(): { fontFamily?: string; fontSize: number } {
  const style = getComputedStyle(document.documentElement);
  const size = Number.parseInt(cssVar(style, "--code-size") ?? "", 10);
  return { fontFamily: cssVar(style, "--mono"), fontSize: Number.isFinite(size) ? size : 12 };
}

let nextKey = 1;

/** One tab: an xterm.js instance and the shell behind it (started again by Restart). */
export class TerminalTab {
  /** Stable for the tab's life (a restart gets a new engine id, not a new tab). */
  readonly key = nextKey++;
  readonly term: Terminal;
  readonly fit = new FitAddon();
  /** The engine's id of the shell; null until it started. */
  id: string | null = $state(null);
  shell: string | null = $state(null);
  /** The folder it started in (the session's folder or its worktree). */
  cwd: string | null = $state(null);
  /** The shell exited (its code, when it had one). */
  exited: { code: number | null } | null = $state(null);
  /** The shell could not be started. */
  failure: string | null = $state(null);
  /** Text is selected in the terminal ("Add selection to prompt" is offered). */
  hasSelection = $state(false);

  /** `term.open` ran: from then on the element only moves. */
  private opened = false;
  private started = false;
  private closed = false;
  /** Counts starts: events of a shell started before a restart are not this one's. */
  private generation = 0;
  /** Typed before the shell's id is known; written once it is. */
  private pending: string[] = [];
  /** The size the PTY was last told. */
  private sent: { cols: number; rows: number } | null = null;

  readonly sessionId: string;
  /** Its number among the session's tabs ("bash 2"). */
  readonly number: number;

  constructor(sessionId: string, number: number) {
    this.sessionId = sessionId;
    this.number = number;
    this.term = new Terminal({ scrollback: SCROLLBACK, cursorBlink: true, theme: terminalTheme(), ...terminalFont() });
    this.term.loadAddon(this.fit);
    // Links open in the system browser; the webview never navigates away from the app.
    this.term.loadAddon(new WebLinksAddon((_event, uri) => void openLink(uri).catch(() => undefined)));
    this.term.attachCustomKeyEventHandler((e) => this.ownKey(e));
    this.term.onData((data) => this.input(data));
    this.term.onSelectionChange(() => (this.hasSelection = this.term.hasSelection()));
  }

  /** Keys the terminal does not send to the shell: copy, paste, and the app's shortcuts a shell has
   *  no use for (showing the panel, switching sessions: see ../shortcuts.ts). */
  private ownKey(e: KeyboardEvent): boolean {
    if (keymap.passesTerminal(e)) return false; // left to the app (the session's screen toggles the panel)
    if (e.type !== "keydown" || !e.ctrlKey || !e.shiftKey || e.altKey || e.metaKey) return true;
    const key = e.key.toLowerCase();
    if (key === "c") {
      const selection = this.term.getSelection();
      if (selection) void navigator.clipboard?.writeText(selection).catch(() => undefined);
    } else if (key === "v") {
      void navigator.clipboard
        ?.readText()
        .then((text) => this.term.paste(text))
        .catch(() => undefined);
    } else return true;
    // Ctrl+Shift+V would also paste natively (and paste twice).
    e.preventDefault();
    return false;
  }

  private input(data: string) {
    if (this.closed || this.exited || this.failure) return;
    if (this.id === null) this.pending.push(data);
    else this.send(this.id, data);
  }

  /** What was typed while a write was on its way: it goes in the next one. */
  private unsent = "";
  private writing = false;

  /**
   * Sends keystrokes to the shell in the order they were typed: one write at a time, since IPC
   * calls made at once may run in any order (fast typing arrived as "tme-r" for "term"); what is
   * typed meanwhile is sent together after it.
   */
  private send(id: string, data: string) {
    this.unsent += data;
    if (this.writing) return;
    this.writing = true;
    void (async () => {
      while (this.unsent && this.id === id) {
        const chunk = this.unsent;
        this.unsent = "";
        await terminalWrite(id, chunk).catch(() => undefined);
      }
      this.writing = false;
      // Typed for a shell started again while the last write was on its way.
      if (this.unsent && this.id !== null) this.send(this.id, "");
    })();
  }

  /**
   * Shows the terminal in `host`: the first time xterm.js opens there; later its element moves
   * there (opening again would start a second screen). A shell not started yet starts at the size
   * it fits.
   */
  attach(host: HTMLElement) {
    if (this.closed) return;
    if (!this.opened) {
      this.term.open(host);
      this.opened = true;
    } else if (this.term.element && this.term.element.parentElement !== host) {
      host.appendChild(this.term.element);
      this.term.refresh(0, this.term.rows - 1);
    }
    this.refit();
    if (!this.started) this.start();
  }

  /** Fits the terminal to its place and tells the PTY a new size. A hidden place has no size. */
  refit() {
    const host = this.term.element?.parentElement;
    if (this.closed || !host || !host.isConnected || host.closest("[hidden]")) return;
    this.fit.fit();
    const { cols, rows } = this.term;
    if (this.id === null || (this.sent?.cols === cols && this.sent.rows === rows)) return;
    this.sent = { cols, rows };
    void terminalResize(this.id, cols, rows).catch(() => undefined);
  }

  /** Starts the shell (again, after it exited or failed to start). */
  start() {
    if (this.closed) return;
    // The shell before is gone (Restart is offered once it exited), but the engine may still hold it.
    if (this.id !== null) void terminalClose(this.id).catch(() => undefined);
    this.started = true;
    const generation = ++this.generation;
    this.id = null;
    this.exited = null;
    this.failure = null;
    this.pending = [];
    this.unsent = "";
    const { cols, rows } = this.term;
    terminalOpen(this.sessionId, cols, rows, (event) => this.receive(generation, event)).then(
      (info) => {
        // Closed, or started again, meanwhile: this shell has no tab.
        if (this.closed || generation !== this.generation) {
          void terminalClose(info.id).catch(() => undefined);
          return;
        }
        this.id = info.id;
        this.shell = info.shell;
        this.cwd = info.cwd;
        this.sent = { cols, rows };
        const typed = this.pending.join("");
        this.pending = [];
        if (typed && !this.exited) this.send(info.id, typed);
        this.refit(); // the view may have changed size while the shell started
      },
      (e: unknown) => {
        if (generation === this.generation && !this.closed) this.failure = errorText(e);
      },
    );
  }

  private receive(generation: number, event: TerminalEvent) {
    if (this.closed || generation !== this.generation) return;
    if (event.type === "output") this.term.write(event.data);
    else this.exited = { code: event.code };
  }

  /** "bash 2": the shell's name (once known) and the tab's number. */
  get title(): string {
    return `${this.shell ? shellName(this.shell) : "shell"} ${this.number}`;
  }

  focus() {
    this.term.focus();
  }

  /** Ends the shell and frees the instance. */
  close() {
    if (this.closed) return;
    this.closed = true;
    if (this.id !== null) void terminalClose(this.id).catch(() => undefined);
    this.term.dispose();
  }
}

/** A session's tabs and which one shows. */
export class SessionTerminals {
  tabs: TerminalTab[] = $state([]);
  activeKey: number | null = $state(null);
  private opened = 0;

  readonly sessionId: string;

  constructor(sessionId: string) {
    this.sessionId = sessionId;
  }

  get active(): TerminalTab | null {
    return this.tabs.find((t) => t.key === this.activeKey) ?? null;
  }

  /** A new tab, shown; its shell starts when its view is first attached (at the size it fits). */
  add(): TerminalTab {
    const tab = new TerminalTab(this.sessionId, ++this.opened);
    this.tabs = [...this.tabs, tab];
    this.activeKey = tab.key;
    return tab;
  }

  select(tab: TerminalTab) {
    this.activeKey = tab.key;
  }

  /** Closes a tab (its shell is killed); the tab after it shows, or the one before. */
  close(tab: TerminalTab) {
    const at = this.tabs.indexOf(tab);
    if (at < 0) return;
    tab.close();
    this.tabs = this.tabs.filter((t) => t !== tab);
    if (this.activeKey === tab.key) this.activeKey = (this.tabs[at] ?? this.tabs[at - 1])?.key ?? null;
  }

  closeAll() {
    for (const tab of this.tabs) tab.close();
    this.tabs = [];
    this.activeKey = null;
  }
}

const bySession = new Map<string, SessionTerminals>();

/** The panel's height in pixels, the same for every session (the user drags it). */
export const terminalPanel = $state({ height: 260 });

/** A session's terminals (none yet, the first time). */
export function terminalsOf(sessionId: string): SessionTerminals {
  let set = bySession.get(sessionId);
  if (!set) {
    set = new SessionTerminals(sessionId);
    bySession.set(sessionId, set);
    watchTheme();
  }
  return set;
}

/** The session ended: its shells are killed. */
export function closeTerminals(sessionId: string) {
  bySession.get(sessionId)?.closeAll();
  bySession.delete(sessionId);
}

// The palette follows the theme (Settings, or the system's when the user chose "system"), live.
let themeWatch: MutationObserver | null = null;
function watchTheme() {
  if (themeWatch || typeof MutationObserver === "undefined") return;
  themeWatch = new MutationObserver(() => {
    const theme = terminalTheme();
    for (const set of bySession.values()) for (const tab of set.tabs) tab.term.options.theme = theme;
  });
  themeWatch.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
}
