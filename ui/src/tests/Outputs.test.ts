// The Outputs browser: a project's persisted tool outputs listed, filtered, searched (hits stream
// through a channel), deleted, and read in windows of lines by the viewer.
import { afterEach, describe, expect, it } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import { Channel } from "@tauri-apps/api/core";
import { mockIPC, mockWindows } from "@tauri-apps/api/mocks";
import App from "../App.svelte";
import type { Deleted } from "../bindings/Deleted";
import type { OutputInfo } from "../bindings/OutputInfo";
import type { OutputLine } from "../bindings/OutputLine";
import type { OutputsView } from "../bindings/OutputsView";
import type { SearchDone } from "../bindings/SearchDone";
import type { SearchHit } from "../bindings/SearchHit";
import OutputsBrowser from "../lib/components/outputs/OutputsBrowser.svelte";
import { completed, queued } from "./fixtures";
import { closeOutputs } from "../lib/outputsNav.svelte";
import { appState, liveSession, type Handler } from "./live";

const PROJECT = "/home/me/projects/nerve-demo";

// The browser's open state lives in a module (the tool cards' chips open it): never leak it.
afterEach(closeOutputs);
const OUT_DIR = "/home/me/.nerve/projects/nerve-demo/outputs";
const LONG_SUMMARY = `cargo test --workspace --all-features -- --nocapture ${"--test-threads=1 ".repeat(10)}tail-end`;
/** Every output has this many lines. */
const TOTAL = 1000;

const outputs: OutputInfo[] = [
  {
    tool: "Bash",
    kind: { kind: "shell" },
    tool_use_id: "tu-1",
    summary: LONG_SUMMARY,
    session_id: "s1",
    session_title: "Fix the parser",
    path: `${OUT_DIR}/tu-1.txt`,
    size_bytes: 1_258_291,
    time_ms: 1_700_000_000_000,
    exists: true,
  },
  {
    tool: "Grep",
    kind: { kind: "search" },
    tool_use_id: "tu-2",
    summary: "pattern: TODO",
    session_id: "s2",
    session_title: "Refactor the lexer",
    path: `${OUT_DIR}/tu-2.txt`,
    size_bytes: 2048,
    time_ms: 1_700_000_100_000,
    exists: true,
  },
  {
    tool: "Bash",
    kind: { kind: "shell" },
    tool_use_id: "tu-3",
    summary: "npm run build",
    session_id: "s1",
    session_title: "Fix the parser",
    path: `${OUT_DIR}/tu-3.txt`,
    size_bytes: 4096,
    time_ms: 1_700_000_200_000,
    exists: false,
  },
];

/** Line n of every output: every 50th says "error". */
const lineText = (n: number) => (n % 50 === 0 ? `error at step ${n}` : `line ${n}`);

function lines(first: number, count: number): OutputLine[] {
  const out: OutputLine[] = [];
  for (let n = first; n < first + count && n <= TOTAL; n++) out.push({ number: n, text: lineText(n) });
  return out;
}

function listed(args: Record<string, unknown>): OutputsView {
  const shown = outputs.filter((o) => (args.sessionId == null || o.session_id === args.sessionId) && (args.tool == null || o.tool === args.tool));
  return { outputs: shown, disk_bytes: 3 * 1024 * 1024 };
}

interface Search {
  args: Record<string, unknown>;
  send: (hit: SearchHit) => void;
  finish: (done: SearchDone) => void;
}

/** The outputs' commands; search_outputs is held open until the test finishes it. */
function outputHandlers(searches: Search[]): Record<string, Handler> {
  return {
    list_outputs: listed,
    read_output_lines: (args) => lines(Number(args.first), Number(args.count)),
    tail_output: (args) => lines(TOTAL - Number(args.count) + 1, Number(args.count)).map((l) => l.text),
    delete_outputs: (): Deleted => ({ outputs: 1, bytes: 1_258_291 }),
    save_output_as: () => "/home/me/Desktop/cargo-test.txt",
    reveal_output: () => null,
    search_outputs: (args) => {
      if (args.regex === true && args.pattern === "[") throw "regex parse error: unclosed character class";
      const channel = args.onHit;
      if (!(channel instanceof Channel)) throw new Error("search_outputs without a channel");
      return new Promise<SearchDone>((resolve) => {
        searches.push({ args, send: (hit) => channel.onmessage(hit), finish: resolve });
      });
    },
  };
}

function mockOutputs() {
  const calls: { cmd: string; args: Record<string, unknown> }[] = [];
  const searches: Search[] = [];
  const handlers = outputHandlers(searches);
  mockWindows("main");
  mockIPC((cmd, raw) => {
    const args = (raw ?? {}) as Record<string, unknown>;
    calls.push({ cmd, args });
    const handler = handlers[cmd];
    return handler ? handler(args) : null;
  });
  return { searches, called: (cmd: string) => calls.filter((c) => c.cmd === cmd).map((c) => c.args) };
}

async function browser(initialOutput?: string) {
  const ipc = mockOutputs();
  const user = userEvent.setup();
  let closed = 0;
  render(OutputsBrowser, { projectPath: PROJECT, onclose: () => closed++, initialOutput });
  if (!initialOutput) await waitFor(() => expect(screen.getAllByTestId("output-row")).toHaveLength(3));
  return { ...ipc, user, closed: () => closed };
}

const row = (id: string) => screen.getAllByTestId("output-row").find((r) => r.dataset.toolUseId === id)!;
const line = (n: number) => screen.getAllByTestId("viewer-line").find((l) => l.dataset.line === String(n));

async function openViewer(user: ReturnType<typeof userEvent.setup>, id = "tu-1") {
  await user.click(within(row(id)).getByRole("button", { name: /Bash|Grep/ }));
  await waitFor(() => expect(screen.getAllByTestId("viewer-line").length).toBeGreaterThan(0));
}

describe("the outputs list", () => {
  it("shows each output's tool, summary, session and size, and marks a missing one", async () => {
    const { called } = await browser();
    expect(screen.getByRole("heading").textContent).toBe("Outputs — nerve-demo");
    expect(screen.getByTestId("outputs-disk").textContent).toContain("3.0 MB");
    expect(called("list_outputs")[0]).toEqual({ projectPath: PROJECT, sessionId: null, tool: null });

    const first = row("tu-1");
    expect(first.dataset.tool).toBe("Bash");
    expect(first.dataset.exists).toBe("true");
    expect(first.textContent).toContain("Fix the parser");
    expect(first.textContent).toContain("1.2 MB");
    // The long summary is shortened in the middle; the full text is in the title.
    const summary = within(first).getByTitle(LONG_SUMMARY);
    expect(summary.textContent).toContain("…");
    expect(summary.textContent).toMatch(/^cargo test/);
    expect(summary.textContent).toMatch(/tail-end$/);

    const missing = row("tu-3");
    expect(missing.dataset.exists).toBe("false");
    expect(missing.textContent).toContain("deleted/missing");
    expect(within(missing).getByRole("button", { name: /Bash/ })).toHaveProperty("disabled", true);
  });

  it("lists one session's or one tool's outputs through list_outputs", async () => {
    const { user, called } = await browser();
    const sessions = screen.getByTestId("outputs-filter-session");
    expect(within(sessions).getAllByRole("option").map((o) => o.textContent)).toEqual(["All sessions", "Fix the parser", "Refactor the lexer"]);

    await user.selectOptions(sessions, "s2");
    await waitFor(() => expect(screen.getAllByTestId("output-row")).toHaveLength(1));
    expect(called("list_outputs").at(-1)).toEqual({ projectPath: PROJECT, sessionId: "s2", tool: null });
    // The other sessions stay on offer.
    expect(within(sessions).getAllByRole("option")).toHaveLength(3);

    await user.selectOptions(sessions, "");
    await user.selectOptions(screen.getByTestId("outputs-filter-tool"), "Bash");
    await waitFor(() => expect(called("list_outputs").at(-1)).toEqual({ projectPath: PROJECT, sessionId: null, tool: "Bash" }));
    await waitFor(() => expect(screen.getAllByTestId("output-row").map((r) => r.dataset.toolUseId)).toEqual(["tu-1", "tu-3"]));
  });

  it("asks before deleting an output, then says what was freed and lists again", async () => {
    const { user, called } = await browser();
    const listings = called("list_outputs").length;
    await user.click(within(row("tu-1")).getByTestId("output-delete"));
    expect(called("delete_outputs")).toHaveLength(0);
    await user.click(within(row("tu-1")).getByTestId("output-delete-confirm"));

    await waitFor(() => expect(screen.getByTestId("outputs-freed").textContent).toContain("Freed 1.2 MB"));
    expect(called("delete_outputs")).toEqual([{ projectPath: PROJECT, outputs: ["tu-1"], sessionId: null }]);
    expect(called("list_outputs").length).toBe(listings + 1);
  });

  it("deletes a session's outputs after asking", async () => {
    const { user, called } = await browser();
    expect(screen.queryByTestId("outputs-delete-session")).toBeNull();
    await user.selectOptions(screen.getByTestId("outputs-filter-session"), "s1");
    await user.click(screen.getByTestId("outputs-delete-session"));
    expect(called("delete_outputs")).toHaveLength(0);
    await user.click(screen.getByTestId("outputs-delete-session-confirm"));
    await waitFor(() => expect(called("delete_outputs")).toEqual([{ projectPath: PROJECT, outputs: [], sessionId: "s1" }]));
    expect((await screen.findByTestId("outputs-freed")).textContent).toContain("Freed 1.2 MB");
  });
});

describe("searching the outputs", () => {
  it("streams hits in, then opens the viewer at a hit's line", async () => {
    const { user, searches, called } = await browser();
    await user.selectOptions(screen.getByTestId("outputs-filter-tool"), "Bash");
    await user.type(screen.getByTestId("outputs-search-input"), "error{Enter}");
    await waitFor(() => expect(searches).toHaveLength(1));
    expect(searches[0]!.args).toMatchObject({ projectPath: PROJECT, pattern: "error", regex: false, sessionId: null, tool: "Bash" });

    searches[0]!.send({ tool_use_id: "tu-1", path: outputs[0]!.path, line: { number: 700, text: lineText(700) } });
    const first = await screen.findByTestId("search-hit");
    expect(first.textContent).toContain("error at step 700");
    expect(screen.getByTestId("outputs-search-status").textContent).toContain("1 match so far");
    searches[0]!.send({ tool_use_id: "tu-1", path: outputs[0]!.path, line: { number: 750, text: lineText(750) } });
    searches[0]!.finish({ hits: 2, truncated: false });
    await waitFor(() => expect(screen.getByTestId("outputs-search-status").textContent?.trim()).toBe("2 matches"));
    expect(screen.getByTestId("search-hits").textContent).toContain("Bash");

    const hit = screen.getAllByTestId("search-hit").find((h) => h.dataset.line === "750")!;
    expect(hit.dataset.toolUseId).toBe("tu-1");
    await user.click(hit);
    await waitFor(() => expect(line(750)).toBeTruthy());
    expect(called("read_output_lines").at(-1)).toEqual({ projectPath: PROJECT, output: "tu-1", first: 650, count: 200 });
    expect(line(750)!.classList.contains("highlighted")).toBe(true);
    expect(line(749)!.classList.contains("highlighted")).toBe(false);
  });

  it("says when the search stopped at its limit", async () => {
    const { user, searches } = await browser();
    await user.type(screen.getByTestId("outputs-search-input"), "line");
    await user.click(screen.getByTestId("outputs-search-run"));
    await waitFor(() => expect(searches).toHaveLength(1));
    for (let n = 1; n <= 3; n++) searches[0]!.send({ tool_use_id: "tu-2", path: outputs[1]!.path, line: { number: n, text: lineText(n) } });
    searches[0]!.finish({ hits: 5000, truncated: true });
    await waitFor(() => expect(screen.getByTestId("outputs-search-status").textContent).toContain("(stopped at 5000)"));
  });

  it("shows an invalid regex as an alert", async () => {
    const { user } = await browser();
    await user.click(screen.getByTestId("outputs-search-regex"));
    await user.type(screen.getByTestId("outputs-search-input"), "[[{Enter}");
    expect((await screen.findByRole("alert")).textContent).toContain("regex parse error");
  });
});

describe("the output viewer", () => {
  it("opens at the head, goes to a line, shows the tail and loads more", async () => {
    const { user, called } = await browser();
    await openViewer(user);
    expect(called("read_output_lines")[0]).toEqual({ projectPath: PROJECT, output: "tu-1", first: 1, count: 200 });
    expect(screen.getAllByTestId("viewer-line")).toHaveLength(200);
    expect(screen.getByTestId("viewer-path").getAttribute("title")).toBe(outputs[0]!.path);

    await user.type(screen.getByTestId("viewer-goto-input"), "500");
    await user.click(screen.getByTestId("viewer-goto"));
    await waitFor(() => expect(line(500)?.classList.contains("highlighted")).toBe(true));
    expect(called("read_output_lines").at(-1)).toEqual({ projectPath: PROJECT, output: "tu-1", first: 400, count: 200 });

    await user.click(screen.getByTestId("viewer-more"));
    await waitFor(() => expect(screen.getAllByTestId("viewer-line")).toHaveLength(400));
    expect(called("read_output_lines").at(-1)).toMatchObject({ first: 600, count: 200 });

    await user.click(screen.getByTestId("viewer-tail"));
    await waitFor(() => expect(screen.getAllByTestId("viewer-line")[0]!.textContent).toContain("line 801"));
    expect(called("tail_output")).toEqual([{ projectPath: PROJECT, output: "tu-1", count: 200 }]);
    const tail = screen.getAllByTestId("viewer-line");
    expect(tail).toHaveLength(200);
    // Tail lines are not numbered by the engine: a "…" gutter, and how far from the end.
    expect(tail[0]!.dataset.line).toBeUndefined();
    expect(tail[0]!.dataset.fromEnd).toBe("200");
    expect(tail[0]!.querySelector(".gutter")!.textContent).toBe("…");
    expect(screen.queryByTestId("viewer-more")).toBeNull();

    await user.click(screen.getByTestId("viewer-head"));
    await waitFor(() => expect(line(1)).toBeTruthy());
  });

  it("finds within the loaded lines, counting matches and stepping through them", async () => {
    const { user } = await browser();
    await openViewer(user);
    expect(screen.getByTestId("viewer-find-count").textContent).toContain("loaded lines");
    await user.type(screen.getByTestId("viewer-find-input"), "error");
    // Lines 50, 100, 150 and 200 of the first 200.
    expect(screen.getByTestId("viewer-find-count").textContent).toContain("1 of 4 in the loaded lines");
    await user.click(screen.getByTestId("viewer-find-next"));
    expect(screen.getByTestId("viewer-find-count").textContent).toContain("2 of 4");
    expect(line(100)!.querySelector("mark.current")!.textContent).toBe("error");
    await user.click(screen.getByTestId("viewer-find-prev"));
    await user.click(screen.getByTestId("viewer-find-prev"));
    expect(screen.getByTestId("viewer-find-count").textContent).toContain("4 of 4");
    expect(line(200)!.querySelector("mark.current")).toBeTruthy();
  });

  it("saves a copy and shows where", async () => {
    const { user, called } = await browser();
    await openViewer(user);
    await user.click(screen.getByTestId("viewer-save"));
    expect((await screen.findByTestId("viewer-saved")).textContent).toContain("/home/me/Desktop/cargo-test.txt");
    expect(called("save_output_as")).toEqual([{ projectPath: PROJECT, output: "tu-1" }]);
    await user.click(screen.getByTestId("viewer-reveal"));
    expect(called("reveal_output")).toEqual([{ projectPath: PROJECT, output: "tu-1" }]);
  });

  it("opens one output's viewer directly when asked for it", async () => {
    const { called } = await browser(outputs[1]!.path);
    await waitFor(() => expect(line(1)).toBeTruthy());
    expect(called("read_output_lines")[0]).toMatchObject({ output: "tu-2", first: 1 });
  });
});

describe("Outputs in the app", () => {
  it("opens from the session's screen and closes back to it, the session still there", async () => {
    const live = liveSession(undefined, outputHandlers([]));
    const user = userEvent.setup();
    render(App);
    await user.type(await screen.findByTestId("project-path-input"), PROJECT);
    await user.click(screen.getByTestId("project-path-open"));
    await user.type(await screen.findByTestId("prompt-input"), "change x{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    await user.type(screen.getByTestId("prompt-input"), "half-typed");

    await user.click(screen.getByTestId("open-outputs"));
    expect(screen.getByTestId("outputs-browser")).toBeTruthy();
    expect(screen.getByTestId("main-screen").hidden).toBe(true);
    await waitFor(() => expect(screen.getAllByTestId("output-row")).toHaveLength(3));
    expect(live.called("list_outputs")[0]).toMatchObject({ projectPath: PROJECT });

    await user.click(screen.getByTestId("outputs-close"));
    expect(screen.queryByTestId("outputs-browser")).toBeNull();
    expect(screen.getByTestId("main-screen").hidden).toBe(false);
    // The same session screen, not a new one: the half-typed prompt and the running turn are there.
    expect((screen.getByTestId("prompt-input") as HTMLTextAreaElement).value).toBe("half-typed");
    expect(live.turns[0]!.settled).toBe(false);
  });

  it("opens an output's viewer from its tool card's chip", async () => {
    const live = liveSession(undefined, outputHandlers([]));
    const user = userEvent.setup();
    render(App);
    await user.type(await screen.findByTestId("project-path-input"), PROJECT);
    await user.click(screen.getByTestId("project-path-open"));
    await user.type(await screen.findByTestId("prompt-input"), "run the tests{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    live.turns[0]!.send(queued("tu-1", 1, false, "Bash"));
    live.turns[0]!.send(completed("tu-1", { persisted_path: outputs[0]!.path, persisted_bytes: outputs[0]!.size_bytes }));

    await user.click(await screen.findByTestId("open-in-outputs"));
    expect(screen.getByTestId("main-screen").hidden).toBe(true);
    await waitFor(() => expect(line(1)).toBeTruthy());
    expect(live.called("read_output_lines")[0]).toEqual({ projectPath: PROJECT, output: "tu-1", first: 1, count: 200 });

    await user.click(screen.getByTestId("outputs-close"));
    expect(screen.getByTestId("main-screen").hidden).toBe(false);
    expect(screen.getByTestId("open-in-outputs")).toBeTruthy();
  });

  it("opens a recent project's outputs from the project picker, without a session", async () => {
    const live = liveSession(undefined, { ...outputHandlers([]), get_app_state: () => ({ ...appState(), recent_projects: [PROJECT] }) });
    const user = userEvent.setup();
    render(App);
    await user.click(await screen.findByTestId("recent-project-outputs"));
    await waitFor(() => expect(screen.getAllByTestId("output-row")).toHaveLength(3));
    expect(live.called("start_session")).toHaveLength(0);
    expect(screen.queryByTestId("open-settings")).toBeNull();
    await user.click(screen.getByTestId("outputs-close"));
    expect(screen.getByTestId("recent-project")).toBeTruthy();
    expect(screen.queryByTestId("open-outputs")).toBeNull(); // no project open
  });
});
