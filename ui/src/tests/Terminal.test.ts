// The terminal panel: the user's own shells in the session's folder, a tab each, xterm.js in the
// view. What the shell writes goes into the terminal, what the user types goes to the shell, the
// shells survive hiding the panel and showing another session, a selection goes to the prompt box
// only when the user sends it. xterm.js cannot draw in jsdom: it and its add-ons are replaced by
// small fakes that record what the panel does with them.
import { afterEach, describe, expect, it, vi } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import type { Channel } from "@tauri-apps/api/core";
import App from "../App.svelte";
import type { TerminalEvent } from "../bindings/TerminalEvent";
import type { TerminalInfo } from "../bindings/TerminalInfo";
import Conversation from "../lib/components/Conversation.svelte";
import { closeTerminals } from "../lib/terminals.svelte";
import { fencedSelection } from "../lib/terminalSelection";
import { appState, liveSession, projectInfo, sessionInfo, type Handler } from "./live";

const fakes = vi.hoisted(() => {
  interface Addon {
    activate(terminal: FakeTerminal): void;
  }
  interface Listener<T> {
    (value: T): void;
  }

  /** The size FitAddon finds for the view (jsdom has no layout to measure). */
  const fitSize = { cols: 132, rows: 40 };

  class FakeTerminal {
    static made: FakeTerminal[] = [];
    cols = 80;
    rows = 24;
    element: HTMLElement | undefined;
    options: Record<string, unknown>;
    /** Everything written to the screen, in order. */
    written: string[] = [];
    /** Parents `open` was called with. */
    openedIn: HTMLElement[] = [];
    /** What the user selected (a test sets it). */
    selection = "";
    disposed = false;
    keyHandler: ((e: KeyboardEvent) => boolean) | null = null;
    private dataListeners: Listener<string>[] = [];
    private selectionListeners: Listener<void>[] = [];

    constructor(options: Record<string, unknown> = {}) {
      this.options = { ...options };
      FakeTerminal.made.push(this);
    }
    loadAddon(addon: Addon) {
      addon.activate(this);
    }
    open(parent: HTMLElement) {
      this.openedIn.push(parent);
      this.element = document.createElement("div");
      this.element.className = "xterm";
      parent.appendChild(this.element);
    }
    write(data: string) {
      this.written.push(data);
    }
    onData(listener: Listener<string>) {
      this.dataListeners.push(listener);
      return { dispose: () => undefined };
    }
    /** The user types (xterm.js turns keys into data for the shell). */
    type(data: string) {
      for (const listener of this.dataListeners) listener(data);
    }
    paste(data: string) {
      this.type(data);
    }
    getSelection() {
      return this.selection;
    }
    hasSelection() {
      return this.selection !== "";
    }
    onSelectionChange(listener: Listener<void>) {
      this.selectionListeners.push(listener);
      return { dispose: () => undefined };
    }
    /** The user selects text (or, with "", clears the selection): xterm.js says it changed. */
    select(text: string) {
      this.selection = text;
      for (const listener of this.selectionListeners) listener();
    }
    attachCustomKeyEventHandler(handler: (e: KeyboardEvent) => boolean) {
      this.keyHandler = handler;
    }
    resize(cols: number, rows: number) {
      this.cols = cols;
      this.rows = rows;
    }
    refresh() {}
    focus() {}
    dispose() {
      this.disposed = true;
      this.element?.remove();
    }
  }

  class FakeFitAddon {
    private terminal: FakeTerminal | null = null;
    activate(terminal: FakeTerminal) {
      this.terminal = terminal;
    }
    fit() {
      this.terminal?.resize(fitSize.cols, fitSize.rows);
    }
    dispose() {}
  }

  class FakeWebLinksAddon {
    static handlers: ((event: MouseEvent, uri: string) => void)[] = [];
    constructor(handler: (event: MouseEvent, uri: string) => void) {
      FakeWebLinksAddon.handlers.push(handler);
    }
    activate() {}
    dispose() {}
  }

  return { FakeTerminal, FakeFitAddon, FakeWebLinksAddon, fitSize };
});

vi.mock("@xterm/xterm", () => ({ Terminal: fakes.FakeTerminal }));
vi.mock("@xterm/addon-fit", () => ({ FitAddon: fakes.FakeFitAddon }));
vi.mock("@xterm/addon-web-links", () => ({ WebLinksAddon: fakes.FakeWebLinksAddon }));

type FakeTerminal = InstanceType<typeof fakes.FakeTerminal>;

/** The terminals the shell opened: each open's arguments and the channel its events go on. */
interface Opened {
  sessionId: string;
  cols: number;
  rows: number;
  channel: Channel<TerminalEvent>;
}

const FOLDER = "/home/me/projects/nerve-demo";
const used: string[] = [];
let nextSession = 1;

/** A session id no other test used (the terminals are kept per session for the app's life). */
function freshId() {
  const id = `term-${nextSession++}`;
  used.push(id);
  return id;
}

/** A session against a shell whose terminals open at once as /bin/bash (t1, t2, …) unless a
 *  handler says otherwise. */
function shell(sessionId = freshId(), handlers: Record<string, Handler> = {}) {
  const opened: Opened[] = [];
  const live = liveSession(sessionInfo({ session_id: sessionId }), {
    terminal_open: (args) => {
      opened.push({
        sessionId: String(args.sessionId),
        cols: Number(args.cols),
        rows: Number(args.rows),
        channel: args.onEvent as Channel<TerminalEvent>,
      });
      const info: TerminalInfo = { id: `t${opened.length}`, shell: "/bin/bash", cwd: FOLDER };
      return info;
    },
    ...handlers,
  });
  return { live, opened, sessionId };
}

/** The arguments of each call of a command (terminal_write, terminal_resize, terminal_close). */
const sent = (live: ReturnType<typeof shell>["live"], cmd: string) => live.called(cmd);

const terminalsMade = () => fakes.FakeTerminal.made;
const lastTerminal = (): FakeTerminal => terminalsMade().at(-1)!;
const tabs = () => screen.queryAllByTestId("terminal-tab");
const promptInput = () => screen.getByTestId("prompt-input") as HTMLTextAreaElement;

async function openPanel(user: ReturnType<typeof userEvent.setup>) {
  await user.click(screen.getByTestId("terminal-toggle"));
  await waitFor(() => expect(tabs().map((t) => t.textContent?.trim())).toContain("bash 1"));
}

afterEach(() => {
  for (const id of used.splice(0)) closeTerminals(id);
  fakes.FakeTerminal.made = [];
  fakes.fitSize.cols = 132;
  fakes.fitSize.rows = 40;
  Reflect.deleteProperty(navigator, "clipboard");
});

describe("The terminal panel", () => {
  it("opens with a shell in the session's folder, at the size the view fits, and says the agent does not see it", async () => {
    const { live, opened, sessionId } = shell();
    const user = userEvent.setup();
    render(Conversation, { session: live.session, onclose: () => {} });
    const toggle = screen.getByTestId("terminal-toggle");
    expect(toggle.getAttribute("title")).toContain("Your shell in this folder; the agent does not see it");
    expect(toggle.getAttribute("aria-pressed")).toBe("false");
    expect(screen.queryByTestId("terminal-panel")).toBeNull();

    await openPanel(user);
    expect(toggle.getAttribute("aria-pressed")).toBe("true");
    expect(opened.map(({ sessionId, cols, rows }) => ({ sessionId, cols, rows }))).toEqual([{ sessionId, cols: 132, rows: 40 }]);
    const term = lastTerminal();
    expect(term.options.scrollback).toBe(5000);
    expect(term.openedIn).toHaveLength(1);
    expect(screen.getByTestId("terminal-view").contains(term.element!)).toBe(true);
    expect(screen.getByTestId("terminal-cwd").textContent).toBe(FOLDER);
  });

  it("sends what the user types to the shell, what was typed before it started once it has", async () => {
    let answer: (info: TerminalInfo) => void = () => {};
    const { live } = shell(freshId(), {
      terminal_open: () => new Promise<TerminalInfo>((resolve) => (answer = resolve)),
    });
    const user = userEvent.setup();
    render(Conversation, { session: live.session, onclose: () => {} });
    await user.click(screen.getByTestId("terminal-toggle"));
    await waitFor(() => expect(live.called("terminal_open")).toHaveLength(1));
    const term = lastTerminal();
    term.type("l");
    term.type("s");
    expect(sent(live, "terminal_write")).toEqual([]);

    answer({ id: "t9", shell: "/usr/bin/zsh", cwd: FOLDER });
    await waitFor(() => expect(sent(live, "terminal_write")).toEqual([{ terminalId: "t9", data: "ls" }]));
    expect(tabs().map((t) => t.textContent?.trim())).toEqual(["zsh 1"]);
    term.type("\r");
    await waitFor(() => expect(sent(live, "terminal_write")).toEqual([{ terminalId: "t9", data: "ls" }, { terminalId: "t9", data: "\r" }]));
  });

  it("sends keys in the order typed: one write at a time, what is typed meanwhile in the next", async () => {
    // IPC calls made at once may run in any order: a second write must not start before the first ended.
    const finish: (() => void)[] = [];
    const { live } = shell(freshId(), {
      terminal_write: () => new Promise<void>((resolve) => finish.push(resolve)),
    });
    const user = userEvent.setup();
    render(Conversation, { session: live.session, onclose: () => {} });
    await openPanel(user);
    await waitFor(() => expect(screen.getByTestId("terminal-cwd").textContent).toBe(FOLDER));
    const term = lastTerminal();
    for (const key of "term") term.type(key);
    await waitFor(() => expect(sent(live, "terminal_write")).toEqual([{ terminalId: "t1", data: "t" }]));
    finish.shift()!();
    await waitFor(() => expect(sent(live, "terminal_write")).toEqual([{ terminalId: "t1", data: "t" }, { terminalId: "t1", data: "erm" }]));
    term.type("\r");
    expect(sent(live, "terminal_write")).toHaveLength(2);
    finish.shift()!();
    await waitFor(() => expect(sent(live, "terminal_write").map((w) => (w as { data: string }).data).join("")).toBe("term\r"));
  });

  it("writes the shell's output into the terminal, also while the panel is hidden, and shows the same terminal again", async () => {
    const { live, opened } = shell();
    const user = userEvent.setup();
    render(Conversation, { session: live.session, onclose: () => {} });
    await openPanel(user);
    const term = lastTerminal();
    opened[0]!.channel.onmessage({ type: "output", data: "$ " });
    expect(term.written).toEqual(["$ "]);

    await user.click(screen.getByTestId("terminal-hide"));
    expect(screen.queryByTestId("terminal-panel")).toBeNull();
    expect(term.disposed).toBe(false);
    opened[0]!.channel.onmessage({ type: "output", data: "build finished\r\n" });
    expect(term.written).toEqual(["$ ", "build finished\r\n"]);
    expect(sent(live, "terminal_close")).toEqual([]);

    await user.click(screen.getByTestId("terminal-toggle"));
    await waitFor(() => expect(screen.getByTestId("terminal-view").contains(term.element!)).toBe(true));
    expect(terminalsMade()).toHaveLength(1);
    expect(term.openedIn).toHaveLength(1); // moved, not opened a second time
    expect(opened).toHaveLength(1);
  });

  it("keeps the terminal when the session's screen is made afresh: its element moves into the new view", async () => {
    const { live, opened } = shell();
    const user = userEvent.setup();
    const first = render(Conversation, { session: live.session, onclose: () => {} });
    await openPanel(user);
    const term = lastTerminal();
    first.unmount();
    opened[0]!.channel.onmessage({ type: "output", data: "meanwhile" });

    render(Conversation, { session: live.session, onclose: () => {} });
    await user.click(screen.getByTestId("terminal-toggle"));
    await waitFor(() => expect(screen.getByTestId("terminal-view").contains(term.element!)).toBe(true));
    expect(term.openedIn).toHaveLength(1);
    expect(term.written).toEqual(["meanwhile"]);
    expect(opened).toHaveLength(1);
    expect(tabs().map((t) => t.textContent?.trim())).toEqual(["bash 1"]);
  });

  it("opens more tabs, shows the one picked, and closing one ends its shell; the panel goes with the last", async () => {
    const { live, opened } = shell();
    const user = userEvent.setup();
    render(Conversation, { session: live.session, onclose: () => {} });
    await openPanel(user);
    await user.click(screen.getByTestId("terminal-new"));
    await waitFor(() => expect(tabs().map((t) => t.textContent?.trim())).toEqual(["bash 1", "bash 2"]));
    expect(opened).toHaveLength(2);
    const [one, two] = terminalsMade();
    const hostOf = (term: FakeTerminal) => term.element!.parentElement!;
    expect([hostOf(one!).hidden, hostOf(two!).hidden]).toEqual([true, false]);

    await user.click(within(tabs()[0]!).getByRole("tab"));
    expect([hostOf(one!).hidden, hostOf(two!).hidden]).toEqual([false, true]);
    expect(tabs()[0]!.querySelector("[aria-selected=true]")).not.toBeNull();

    await user.click(within(tabs()[0]!).getByTestId("terminal-close"));
    await waitFor(() => expect(sent(live, "terminal_close")).toEqual([{ terminalId: "t1" }]));
    expect(one!.disposed).toBe(true);
    expect(tabs().map((t) => t.textContent?.trim())).toEqual(["bash 2"]);
    expect(hostOf(two!).hidden).toBe(false);

    await user.click(within(tabs()[0]!).getByTestId("terminal-close"));
    await waitFor(() => expect(sent(live, "terminal_close")).toEqual([{ terminalId: "t1" }, { terminalId: "t2" }]));
    expect(screen.queryByTestId("terminal-panel")).toBeNull();
    expect(document.activeElement).toBe(promptInput());
  });

  it("says when the shell exited, sends it nothing more, and Restart starts a new one in the same tab", async () => {
    const { live, opened } = shell();
    const user = userEvent.setup();
    render(Conversation, { session: live.session, onclose: () => {} });
    await openPanel(user);
    const term = lastTerminal();
    opened[0]!.channel.onmessage({ type: "output", data: "exit 3\r\n" });
    opened[0]!.channel.onmessage({ type: "exit", code: 3 });
    await waitFor(() => expect(tabs()[0]!.textContent?.trim()).toBe("bash 1 · exited (code 3)"));
    expect(screen.getByTestId("terminal-status").textContent).toContain("The shell exited (code 3).");
    term.type("ls\r");
    expect(sent(live, "terminal_write")).toEqual([]);

    await user.click(screen.getByTestId("terminal-restart"));
    await waitFor(() => expect(opened).toHaveLength(2));
    await waitFor(() => expect(tabs()[0]!.textContent?.trim()).toBe("bash 1"));
    expect(sent(live, "terminal_close")).toEqual([{ terminalId: "t1" }]); // what the engine held of the old one goes
    expect(screen.queryByTestId("terminal-status")).toBeNull();
    expect(terminalsMade()).toEqual([term]); // the same screen, its scrollback kept
    // A late event of the old shell is not the new one's.
    opened[0]!.channel.onmessage({ type: "exit", code: 0 });
    opened[1]!.channel.onmessage({ type: "output", data: "$ " });
    expect(term.written).toEqual(["exit 3\r\n", "$ "]);
    expect(tabs()[0]!.textContent?.trim()).toBe("bash 1");
    term.type("pwd\r");
    await waitFor(() => expect(sent(live, "terminal_write")).toEqual([{ terminalId: "t2", data: "pwd\r" }]));
  });

  it("says why a shell could not start, and tries again on Restart", async () => {
    let refuse = true;
    const { live } = shell(freshId(), {
      terminal_open: () => {
        if (refuse) throw "no PTY available";
        return { id: "t1", shell: "/bin/bash", cwd: FOLDER } satisfies TerminalInfo;
      },
    });
    const user = userEvent.setup();
    render(Conversation, { session: live.session, onclose: () => {} });
    await user.click(screen.getByTestId("terminal-toggle"));
    await waitFor(() => expect(screen.getByTestId("terminal-status").textContent).toContain("Could not start a shell: no PTY available"));
    refuse = false;
    await user.click(screen.getByTestId("terminal-restart"));
    await waitFor(() => expect(screen.queryByTestId("terminal-status")).toBeNull());
    expect(tabs().map((t) => t.textContent?.trim())).toEqual(["bash 1"]);
  });

  it("sends the selection to the prompt box as a fenced code block, after the draft; nothing selected, nothing sent", async () => {
    const { live } = shell();
    const user = userEvent.setup();
    render(Conversation, { session: live.session, onclose: () => {} });
    await openPanel(user);
    const term = lastTerminal();

    await user.click(screen.getByTestId("terminal-send"));
    expect(screen.getByTestId("terminal-note").textContent).toBe("Select text in the terminal first.");
    expect(promptInput().value).toBe("");

    await user.type(promptInput(), "Why does this fail?");
    term.selection = "$ cargo test   \n  error[E0425]: cannot find `x`  \n\n";
    await user.click(screen.getByTestId("terminal-send"));
    expect(promptInput().value).toBe("Why does this fail?\n\n```\n$ cargo test\n  error[E0425]: cannot find `x`\n```\n");
    expect(screen.queryByTestId("terminal-note")).toBeNull();
    await waitFor(() => expect(document.activeElement).toBe(promptInput()));
    expect(live.called("send_prompt")).toEqual([]); // the user sends it, or not
  });

  it("attaches the selection to the prompt as a chip, offered only while text is selected; it goes with the prompt", async () => {
    const { live } = shell();
    const user = userEvent.setup();
    render(Conversation, { session: live.session, onclose: () => {} });
    await openPanel(user);
    const term = lastTerminal();
    const button = screen.getByTestId("terminal-attach-selection") as HTMLButtonElement;
    expect(button.textContent?.trim()).toBe("Add selection to prompt");
    expect(button.disabled).toBe(true);

    term.select("$ cargo test   \n  error[E0425]: cannot find `x`  \n\n");
    await waitFor(() => expect(button.disabled).toBe(false));
    await user.click(button);
    const chip = screen.getByTestId("attachment-chip");
    expect(chip.dataset.kind).toBe("terminal_selection");
    expect(chip.querySelector(".a-name")?.textContent).toBe("Terminal selection (2 lines)");
    expect(promptInput().value).toBe(""); // not in the text: a block of its own
    await waitFor(() => expect(document.activeElement).toBe(promptInput()));

    term.select("");
    await waitFor(() => expect(button.disabled).toBe(true));

    await user.type(promptInput(), "Why does this fail?{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    expect(live.turns[0]!.prompt).toBe("Why does this fail?");
    expect(live.turns[0]!.attachments).toEqual([{ kind: "terminal_selection", text: "$ cargo test\n  error[E0425]: cannot find `x`" }]);
    expect(screen.queryAllByTestId("attachment-chip")).toHaveLength(0);
  });

  it("follows the view's size: the terminal fits and the shell is told the new size", async () => {
    const observers: { callback: ResizeObserverCallback; targets: Element[] }[] = [];
    const Original = globalThis.ResizeObserver;
    globalThis.ResizeObserver = class {
      private entry: { callback: ResizeObserverCallback; targets: Element[] };
      constructor(callback: ResizeObserverCallback) {
        this.entry = { callback, targets: [] };
        observers.push(this.entry);
      }
      observe(target: Element) {
        this.entry.targets.push(target);
      }
      unobserve() {}
      disconnect() {
        this.entry.targets = [];
      }
    };
    try {
      const { live } = shell();
      const user = userEvent.setup();
      render(Conversation, { session: live.session, onclose: () => {} });
      await openPanel(user);
      const view = screen.getByTestId("terminal-view");
      const watching = observers.find((o) => o.targets.includes(view))!;
      expect(watching).toBeDefined();

      // Same size: nothing to tell.
      watching.callback([], {} as ResizeObserver);
      expect(sent(live, "terminal_resize")).toEqual([]);
      fakes.fitSize.cols = 100;
      fakes.fitSize.rows = 12;
      watching.callback([], {} as ResizeObserver);
      await waitFor(() => expect(sent(live, "terminal_resize")).toEqual([{ terminalId: "t1", cols: 100, rows: 12 }]));
      expect([lastTerminal().cols, lastTerminal().rows]).toEqual([100, 12]);
    } finally {
      globalThis.ResizeObserver = Original;
    }
  });

  it("toggles with Ctrl+`, from the terminal too; Ctrl+Shift+C copies the selection, Ctrl+Shift+V pastes to the shell", async () => {
    const { live } = shell();
    const user = userEvent.setup();
    const writeText = vi.fn<(text: string) => Promise<void>>().mockResolvedValue(undefined);
    const readText = vi.fn<() => Promise<string>>().mockResolvedValue("echo pasted");
    Object.defineProperty(navigator, "clipboard", { value: { writeText, readText }, configurable: true });
    render(Conversation, { session: live.session, onclose: () => {} });

    await user.keyboard("{Control>}`{/Control}");
    await waitFor(() => expect(tabs().map((t) => t.textContent?.trim())).toEqual(["bash 1"]));
    const term = lastTerminal();
    const key = (init: KeyboardEventInit) => new KeyboardEvent("keydown", { cancelable: true, ...init });

    // The terminal leaves Ctrl+` to the screen (it would send the shell a NUL otherwise).
    expect(term.keyHandler!(key({ key: "`", code: "Backquote", ctrlKey: true }))).toBe(false);
    expect(term.keyHandler!(key({ key: "a", ctrlKey: true }))).toBe(true);

    term.selection = "some output";
    const copy = key({ key: "C", ctrlKey: true, shiftKey: true });
    expect(term.keyHandler!(copy)).toBe(false);
    expect(copy.defaultPrevented).toBe(true);
    expect(writeText).toHaveBeenCalledWith("some output");

    const paste = key({ key: "V", ctrlKey: true, shiftKey: true });
    expect(term.keyHandler!(paste)).toBe(false);
    expect(paste.defaultPrevented).toBe(true); // or the webview pastes a second time
    await waitFor(() => expect(sent(live, "terminal_write")).toEqual([{ terminalId: "t1", data: "echo pasted" }]));

    await user.keyboard("{Control>}`{/Control}");
    expect(screen.queryByTestId("terminal-panel")).toBeNull();
    expect(sent(live, "terminal_close")).toEqual([]);
  });

  it("takes its colours and font from the app's palette, and follows the theme", async () => {
    const palette = document.createElement("style");
    palette.textContent = `
      :root { --bg-code: #111317; --fg: #d8dce3; --mono: "JetBrains Mono", monospace; --code-size: 12px; }
      :root[data-theme="light"] { --bg-code: #f3f4f6; --fg: #1d2330; --muted: #5f6878; }`;
    document.head.append(palette);
    try {
      const { live } = shell();
      const user = userEvent.setup();
      render(Conversation, { session: live.session, onclose: () => {} });
      await openPanel(user);
      const term = lastTerminal();
      expect(term.options).toMatchObject({ fontFamily: '"JetBrains Mono", monospace', fontSize: 12, theme: { background: "#111317", foreground: "#d8dce3" } });

      document.documentElement.dataset.theme = "light";
      await waitFor(() => expect(term.options.theme).toMatchObject({ background: "#f3f4f6", foreground: "#1d2330", white: "#5f6878", brightWhite: "#1d2330" }));
    } finally {
      palette.remove();
      delete document.documentElement.dataset.theme;
    }
  });

  it("opens links through the app's opener, never in the webview", async () => {
    const { live } = shell();
    const user = userEvent.setup();
    render(Conversation, { session: live.session, onclose: () => {} });
    await openPanel(user);
    const handler = fakes.FakeWebLinksAddon.handlers.at(-1)!;
    handler(new MouseEvent("click"), "https://example.com/docs");
    await waitFor(() => expect(live.called("open_link")).toEqual([{ url: "https://example.com/docs" }]));
  });
});

describe("Terminals across sessions", () => {
  const ALPHA = "/home/me/projects/alpha";

  /** The whole app; each new session gets its own id (new-1, new-2, …). */
  function app() {
    let started = 0;
    const opened: Opened[] = [];
    const live = liveSession(sessionInfo(), {
      get_app_state: () => ({ ...appState(), recent_projects: [ALPHA] }),
      open_project: ({ path }) => projectInfo(String(path)),
      start_session: ({ projectPath }) => {
        const id = `new-${++started}`;
        used.push(id);
        return sessionInfo({ session_id: id, project_path: String(projectPath) });
      },
      list_sessions: () => [],
      terminal_open: (args) => {
        opened.push({ sessionId: String(args.sessionId), cols: Number(args.cols), rows: Number(args.rows), channel: args.onEvent as Channel<TerminalEvent> });
        return { id: `t${opened.length}`, shell: "/bin/bash", cwd: `${ALPHA}/${String(args.sessionId)}` } satisfies TerminalInfo;
      },
    });
    render(App);
    return { live, opened, user: userEvent.setup() };
  }

  const view = (id: string) => screen.getAllByTestId("session-view").find((v) => v.dataset.sessionId === id)!;
  const row = (id: string) => screen.getAllByTestId("sidebar-session").find((r) => r.dataset.sessionId === id)!;

  it("keeps each session's terminal, with what it wrote meanwhile, when another session shows; closing the session ends its shells", async () => {
    const { live, opened, user } = app();
    await user.click(await within(await screen.findByTestId("sidebar")).findByTestId("sidebar-new-session"));
    await waitFor(() => expect(row("new-1")).toBeTruthy());
    await user.click(within(view("new-1")).getByTestId("terminal-toggle"));
    await waitFor(() => expect(opened.map((o) => o.sessionId)).toEqual(["new-1"]));
    const first = lastTerminal();

    await user.click(within(screen.getByTestId("sidebar")).getByTestId("sidebar-new-session"));
    await waitFor(() => expect(row("new-2").getAttribute("aria-current")).toBe("true"));
    expect(within(view("new-2")).queryByTestId("terminal-panel")).toBeNull();
    await user.click(within(view("new-2")).getByTestId("terminal-toggle"));
    await waitFor(() => expect(opened.map((o) => o.sessionId)).toEqual(["new-1", "new-2"]));
    opened[0]!.channel.onmessage({ type: "output", data: "while hidden" });

    await user.click(row("new-1"));
    expect(view("new-1").hidden).toBe(false);
    expect(within(view("new-1")).getByTestId("terminal-view").contains(first.element!)).toBe(true);
    expect(first.written).toEqual(["while hidden"]);
    expect(first.openedIn).toHaveLength(1);
    expect(opened).toHaveLength(2);
    expect(within(view("new-1")).getByTestId("terminal-cwd").textContent).toBe(`${ALPHA}/new-1`);

    await user.click(within(view("new-1")).getByTestId("close-session"));
    await waitFor(() => expect(live.called("terminal_close")).toEqual([{ terminalId: "t1" }]));
    expect(first.disposed).toBe(true);
  });
});

describe("A selection for the prompt", () => {
  it("is fenced, padding and blank edge lines dropped", () => {
    expect(fencedSelection("\n  $ ls   \r\nsrc  tests  \n\n")).toBe("```\n  $ ls\nsrc  tests\n```");
  });

  it("gets a fence longer than any backticks inside it", () => {
    expect(fencedSelection("a ``` b\n````")).toBe("`````\na ``` b\n````\n`````");
  });

  it("is nothing when only blanks are selected", () => {
    expect(fencedSelection("")).toBeNull();
    expect(fencedSelection("   \n \n")).toBeNull();
  });
});
