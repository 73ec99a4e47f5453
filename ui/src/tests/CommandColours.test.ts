// A command's output in its colours, wherever it shows: a finished Bash call whose output held
// escapes (the engine's CommandDisplay: the user sees colours, Copy gives the model's plain text),
// the live output while it runs, a background shell's tail and the Outputs viewer. Nothing the
// command printed is ever taken as HTML, and find in conversation still finds and marks its text.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import { mockIPC, mockWindows } from "@tauri-apps/api/mocks";
import type { CommandDisplay } from "../bindings/CommandDisplay";
import type { Event } from "../bindings/Event";
import type { OutputInfo } from "../bindings/OutputInfo";
import type { OutputLine } from "../bindings/OutputLine";
import AnsiText from "../lib/components/AnsiText.svelte";
import Conversation from "../lib/components/Conversation.svelte";
import MessageList from "../lib/components/MessageList.svelte";
import OutputViewer from "../lib/components/outputs/OutputViewer.svelte";
import { initialState, reduce } from "../lib/conversation/reducer";
import { conversationSources } from "../lib/find";
import { completed, queued } from "./fixtures";
import { liveSession, sessionInfo } from "./live";

const ESC = "\u001b";
const red = (s: string) => `${ESC}[31m${s}${ESC}[0m`;
const green = (s: string) => `${ESC}[32m${s}${ESC}[0m`;

/** `cargo test` as the terminal showed it, and as the model read it (escapes stripped). */
const TERMINAL = `running 2 tests\ntest parser::ok ... ${green("ok")}\ntest parser::fails ... ${red("FAILED")}\n\n${ESC}[1mfailures:${ESC}[0m <script>alert(1)</script>`;
const MODEL_TEXT = "running 2 tests\ntest parser::ok ... ok\ntest parser::fails ... FAILED\n\nfailures: <script>alert(1)</script>";
const display: CommandDisplay = { terminal: TERMINAL };

const stateOf = (events: Event[]) => events.reduce((s, e) => reduce(s, e, Date.now()), initialState());
const card = (id: string) => document.querySelector(`[data-tool-use-id="${id}"]`) as HTMLElement;
/** A Bash call that finished with `content` for the model and `display` for the user. */
const finished = (id: string, text: string, shown: CommandDisplay | null): Event[] => [
  queued(id, 1, false, "Bash", "Bash cargo test"),
  { type: "tool_started", tool_use_id: id },
  completed(id, { content: [{ type: "text", text }], display: shown }),
];

let writeText: ReturnType<typeof vi.fn<(text: string) => Promise<void>>>;
/** A clipboard that records what is copied (after userEvent.setup, which puts its own in place). */
function stubClipboard() {
  writeText = vi.fn<(text: string) => Promise<void>>().mockResolvedValue(undefined);
  Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
}
beforeEach(() => mockWindows("main"));
afterEach(() => {
  Reflect.deleteProperty(navigator, "clipboard");
  vi.restoreAllMocks();
});

describe("AnsiText", () => {
  it("draws colours as styled spans and shows the command's markup as text", () => {
    const { container } = render(AnsiText, { text: `${red("<img src=x onerror=alert(1)>")} <script>alert(2)</script>` });
    expect(container.querySelector("img, script")).toBeNull();
    expect(container.textContent).toBe("<img src=x onerror=alert(1)> <script>alert(2)</script>");
    expect(container.querySelector(".ansi-red-fg")?.textContent).toBe("<img src=x onerror=alert(1)>");
  });

  it("marks the find bar's matches in the text shown, inside the colours", () => {
    const { container } = render(AnsiText, { text: `x ${red("needle")} y`, hits: { starts: [2], length: 6, current: 0, reveal: 1 } });
    const mark = container.querySelector("mark.find-hit.find-current")!;
    expect(mark.textContent).toBe("needle");
    expect(mark.closest(".ansi-red-fg")).not.toBeNull();
  });
});

describe("a finished Bash call with a terminal display", () => {
  it("shows the output in colour in place of the plain text; Copy gives the model's text", async () => {
    const user = userEvent.setup();
    stubClipboard();
    render(MessageList, { conversation: stateOf(finished("t", MODEL_TEXT, display)), sessionId: "s1" });
    await user.click(within(card("t")).getByTestId("tool-expand"));
    const shown = within(card("t")).getByTestId("result-terminal");
    expect(within(card("t")).queryByTestId("result-text")).toBeNull();
    expect(shown.textContent).toBe(MODEL_TEXT);
    expect(shown.querySelector(".ansi-green-fg")?.textContent).toBe("ok");
    expect(shown.querySelector(".ansi-red-fg")?.textContent).toBe("FAILED");
    expect(shown.querySelector("script")).toBeNull();

    await user.click(within(card("t")).getByTestId("copy-result"));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(MODEL_TEXT));
  });

  it("shows the plain text when the engine gave no terminal display", async () => {
    const user = userEvent.setup();
    render(MessageList, { conversation: stateOf(finished("t", "just text", null)), sessionId: "s1" });
    await user.click(within(card("t")).getByTestId("tool-expand"));
    expect(within(card("t")).getByTestId("result-text").textContent).toBe("just text");
    expect(within(card("t")).queryByTestId("result-terminal")).toBeNull();
  });

  it("keeps a long output virtualised, each row in its colours", async () => {
    const long = Array.from({ length: 500 }, (_, i) => (i % 2 ? red(`line ${i}`) : `line ${i}`)).join("\n");
    const user = userEvent.setup();
    render(MessageList, { conversation: stateOf(finished("t", "(plain)", { terminal: long })), sessionId: "s1" });
    await user.click(within(card("t")).getByTestId("tool-expand"));
    const shown = within(card("t")).getByTestId("result-terminal");
    const rows = shown.querySelectorAll(".vlist-row");
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(100);
    expect(shown.querySelector(".ansi-red-fg")?.textContent).toBe("line 1");
  });
});

describe("live output", () => {
  it("shows the raw chunks in colour, each progress line at its last frame", () => {
    const running = stateOf([
      queued("x", 1, false, "Bash", "Bash npm install"),
      { type: "tool_started", tool_use_id: "x" },
      { type: "tool_progress", tool_use_id: "x", progress: { kind: "output", text: `${green("added")} 3 packages\n` } },
      { type: "tool_progress", tool_use_id: "x", progress: { kind: "output", text: "fetch [#   ] 10%\rfetch [##  ] 50%" } },
      { type: "tool_progress", tool_use_id: "x", progress: { kind: "output", text: `\rfetch [####] 100%${ESC}[K` } },
    ]);
    render(MessageList, { conversation: running, sessionId: "s1" });
    const progress = screen.getByTestId("tool-progress");
    expect(progress.textContent).toBe("added 3 packages\nfetch [####] 100%");
    expect(progress.querySelector(".ansi-green-fg")?.textContent).toBe("added");
  });
});

describe("find in a command's coloured output", () => {
  it("searches a command's output as it shows: the terminal's text in place of the model's, escapes left out", () => {
    const state = stateOf([
      ...finished("t", MODEL_TEXT, display),
      ...finished("p", "plain", null),
      queued("x", 2, false, "Bash", "Bash make"),
      { type: "tool_started", tool_use_id: "x" },
      { type: "tool_progress", tool_use_id: "x", progress: { kind: "output", text: `${red("cc")} a.c\r${red("cc")} b.c\n` } },
    ]);
    const sources = conversationSources(state).filter((s) => !s.id.startsWith("s:"));
    expect(sources).toEqual([
      { id: "r:t:terminal", text: MODEL_TEXT },
      { id: "r:p:0", text: "plain" },
      { id: "o:x", text: "cc b.c\n" },
    ]);
  });

  async function openFind() {
    const live = liveSession(sessionInfo());
    const user = userEvent.setup();
    render(Conversation, { session: live.session, onclose: vi.fn() });
    await user.type(screen.getByTestId("prompt-input"), "go{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    return { turn: live.turns[0]!, user };
  }

  async function search(user: ReturnType<typeof userEvent.setup>, query: string) {
    await user.keyboard("{Control>}f{/Control}");
    const input = await screen.findByTestId("find-input");
    await user.clear(input);
    await user.type(input, query);
  }
  const count = () => screen.getByTestId("find-count").textContent;
  const current = () => document.querySelector("mark.find-current") as HTMLElement | null;

  it("finds the text shown, opens the result and marks the match inside its colour", async () => {
    const { turn, user } = await openFind();
    for (const e of finished("t", MODEL_TEXT, display)) turn.send(e);
    await search(user, "FAILED");
    await waitFor(() => expect(count()).toBe("1 of 1"));
    await waitFor(() => expect(current()?.textContent).toBe("FAILED"));
    expect(current()!.closest("[data-testid=result-terminal]")).not.toBeNull();
    expect(current()!.closest(".ansi-red-fg")).not.toBeNull();
    expect(within(card("t")).getByTestId("tool-expand").getAttribute("aria-expanded")).toBe("true");

    // The escapes are not text: their letters are not found ("[[" types one "[").
    await search(user, "[[31m");
    await waitFor(() => expect(count()).toBe("0 of 0"));
  });

  it("finds in live output as it shows, the escapes and overdrawn frames left out", async () => {
    const { turn, user } = await openFind();
    turn.send(queued("x", 1, false, "Bash", "Bash make"));
    turn.send({ type: "tool_started", tool_use_id: "x" });
    turn.send({ type: "tool_progress", tool_use_id: "x", progress: { kind: "output", text: `${red("error")}: step 1\rerror: step 2\n` } });
    await search(user, "error");
    await waitFor(() => expect(count()).toBe("1 of 1"));
    await waitFor(() => expect(current()?.closest("[data-testid=tool-progress]")).not.toBeNull());
    expect(screen.getByTestId("tool-progress").textContent).toBe("error: step 2\n");
  });
});

describe("the Outputs viewer", () => {
  const output: OutputInfo = {
    tool: "Bash",
    kind: { kind: "shell" },
    tool_use_id: "tu-1",
    summary: "cargo build",
    session_id: "s1",
    session_title: "Build",
    path: "/home/me/.nerve/projects/demo/outputs/tu-1.txt",
    size_bytes: 120,
    time_ms: 1_700_000_000_000,
    exists: true,
  };
  const LINES: OutputLine[] = [
    { number: 1, text: `${ESC}[1m${green("Compiling")}${ESC}[0m demo v0.1.0` },
    { number: 2, text: `${red("error")}: mismatched types <b>here</b>` },
    { number: 3, text: "plain line with an error" },
  ];

  function viewer() {
    mockIPC((cmd) => (cmd === "read_output_lines" ? LINES : null));
    const user = userEvent.setup();
    stubClipboard();
    render(OutputViewer, { projectPath: "/home/me/projects/demo", output });
    return user;
  }
  const line = (n: number) => screen.getAllByTestId("viewer-line").find((l) => l.dataset.line === String(n))!;
  /** A line's text, without its number. */
  const textOf = (n: number) => line(n).querySelector(".text")!.textContent;

  it("shows the lines in colour, numbered, the markup as text; Copy gives the file's text", async () => {
    const user = viewer();
    await waitFor(() => expect(screen.getAllByTestId("viewer-line")).toHaveLength(3));
    expect(textOf(1)).toBe("Compiling demo v0.1.0");
    expect(line(1).querySelector(".ansi-green-fg")?.textContent).toBe("Compiling");
    expect(line(2).querySelector(".ansi-red-fg")?.textContent).toBe("error");
    expect(line(2).querySelector("b")).toBeNull();
    await user.click(screen.getByTestId("viewer-copy"));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(LINES.map((l) => l.text).join("\n")));
  });

  it("finds in the text shown; a line with a match shows it plain with the match marked", async () => {
    const user = viewer();
    await waitFor(() => expect(screen.getAllByTestId("viewer-line")).toHaveLength(3));
    await user.type(screen.getByTestId("viewer-find-input"), "error");
    expect(screen.getByTestId("viewer-find-count").textContent).toContain("1 of 2 in the loaded lines");
    expect(line(2).querySelector("mark.current")?.textContent).toBe("error");
    expect(textOf(2)).toBe("error: mismatched types <b>here</b>");
    // A line without a match keeps its colours meanwhile.
    expect(line(1).querySelector(".ansi-green-fg")).not.toBeNull();
    await user.clear(screen.getByTestId("viewer-find-input"));
    await user.type(screen.getByTestId("viewer-find-input"), "32m");
    expect(screen.getByTestId("viewer-find-count").textContent).toContain("No matches");
  });
});
