// Search across a project's sessions in the sidebar: besides the sessions whose title or a prompt
// matches (list_sessions), the matches the engine's full-text index found in everything they said
// (search_sessions), each opening its session at the hit: the call's card with its result open,
// or the prompt.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import App from "../App.svelte";
import type { PastCall } from "../bindings/PastCall";
import type { SessionSearchHit } from "../bindings/SessionSearchHit";
import type { TranscriptSummary } from "../bindings/TranscriptSummary";
import { promptInfo, searchHit, sessionSummary } from "./fixtures";
import { appState, liveSession, projectInfo, sessionInfo, type Handler } from "./live";
import { answered, results, said } from "./messages";

const ALPHA = "/home/me/projects/alpha";
const BETA = "/home/me/work/beta";

const summary = (id: string, fields: Partial<TranscriptSummary> = {}): TranscriptSummary =>
  sessionSummary(id, { modified_ms: Date.now() - 5 * 60_000, created_ms: Date.now() - 60 * 60_000, ...fields });

// Session a1 as the engine gives it back when resumed: two prompts, a test run failing in the second.
const testRun: PastCall = {
  tool_use_id: "tu-test",
  tool_name: "Bash",
  kind: { kind: "shell" },
  display_name: "Bash",
  summary: "cargo test",
  batch_index: 1,
  concurrent: false,
  denied: false,
  error: null,
  destructive: false,
  persisted_path: null,
  persisted_bytes: null,
  changed_files: [],
};
const a1History = [
  said("read the parser"),
  answered("The parser is a Pratt parser."),
  said("run the tests"),
  answered("", [["tu-test", "Bash", { command: "cargo test" }]]),
  results(["tu-test", "test result: FAILED. 3 passed; 1 failed"]),
  answered("One test fails."),
];
const a1 = () =>
  sessionInfo({
    session_id: "a1",
    project_path: ALPHA,
    history: a1History,
    past_calls: [testRun],
    prompts: [promptInfo(1, "read the parser", 0), promptInfo(2, "run the tests", 2, { outcome: "error" })],
  });

interface Options {
  recent?: string[];
  listings?: Record<string, TranscriptSummary[]>;
  /** search_sessions' answer to each query of each project. */
  hits?: (projectPath: string, query: string) => SessionSearchHit[] | Promise<SessionSearchHit[]>;
  handlers?: Record<string, Handler>;
}

function shell({ recent = [ALPHA], listings = { [ALPHA]: [summary("a1")] }, hits = () => [], handlers = {} }: Options = {}) {
  const live = liveSession(sessionInfo(), {
    get_app_state: () => ({ ...appState(), recent_projects: recent }),
    open_project: ({ path }) => ({ ...projectInfo(String(path)), sessions: listings[String(path)] ?? [] }),
    start_session: ({ projectPath, resume }) =>
      resume === "a1" ? a1() : sessionInfo({ session_id: String(resume ?? "new"), project_path: String(projectPath) }),
    list_sessions: ({ projectPath }) => listings[String(projectPath)] ?? [],
    search_sessions: ({ projectPath, query }) => hits(String(projectPath), String(query)),
    ...handlers,
  });
  const user = userEvent.setup();
  render(App);
  return { live, user };
}

const project = (path: string) => screen.getAllByTestId("sidebar-project").find((p) => p.dataset.path === path)!;
const hitsOf = (path: string) => within(project(path)).queryAllByTestId("search-hit");
const search = () => screen.getByTestId("sidebar-search") as HTMLInputElement;
const shownScreen = () => screen.getAllByTestId("session-view").find((s) => !s.hidden)!;

/** Elements scrolled into view, in order (jsdom has no layout). */
const scrolled: Element[] = [];
beforeEach(() => {
  scrolled.length = 0;
  vi.spyOn(Element.prototype, "scrollIntoView").mockImplementation(function (this: Element) {
    scrolled.push(this);
  });
});
afterEach(() => vi.restoreAllMocks());

describe("Matches in conversations", () => {
  it("shows each project's hits under its sessions: the session, the kind, the prompt and the snippet with the matched words marked, as text", async () => {
    const { live, user } = shell({
      recent: [ALPHA, BETA],
      hits: (path, query) =>
        path === ALPHA && query === "parser"
          ? [
              searchHit("a1", [["The ", false], ["parser", true], [" is a Pratt ", false], ["parser", true], [".", false]], { title: "Read the code", turn: 1 }),
              searchHit("a2", [["<img src=x onerror=alert(1)> ", false], ["parser", true]], { kind: "tool_result", turn: 3, tool_use_id: "tu-9", title: "" }),
              searchHit("a3", [["cargo test --", false], ["parser", true]], { kind: "tool_call", turn: 2, tool_use_id: "tu-3" }),
              searchHit("a4", [["Fix the ", false], ["parser", true]], { kind: "title", turn: 0 }),
            ]
          : [],
    });
    await waitFor(() => expect(within(project(ALPHA)).getAllByTestId("sidebar-session")).toHaveLength(1));
    // No search, no hits (and nothing asked of the index).
    expect(screen.queryByTestId("search-hits")).toBeNull();

    await user.type(search(), "parser");
    await waitFor(() => expect(hitsOf(ALPHA)).toHaveLength(4));
    // Debounced: the whole query, once per shown project.
    expect(live.called("search_sessions")).toEqual([
      { projectPath: ALPHA, query: "parser" },
      { projectPath: BETA, query: "parser" },
    ]);
    expect(within(project(ALPHA)).getByTestId("search-hits").textContent).toContain("Matches in conversations");
    expect(within(project(BETA)).getByTestId("search-hits-none").textContent).toBe("No matches in conversations");

    const [reply, result, call, title] = hitsOf(ALPHA);
    expect([reply, result, call, title].map((h) => [h!.dataset.sessionId, h!.dataset.kind, h!.dataset.toolUseId ?? null])).toEqual([
      ["a1", "reply", null],
      ["a2", "tool_result", "tu-9"],
      ["a3", "tool_call", "tu-3"],
      ["a4", "title", null],
    ]);
    expect(within(reply!).getByTestId("search-hit-title").textContent).toBe("Read the code");
    expect(within(reply!).getByTestId("search-hit-kind").textContent).toBe("reply");
    expect(within(reply!).getByTestId("search-hit-turn").textContent).toBe("prompt 1");
    const snippet = within(reply!).getByTestId("search-hit-snippet");
    expect(snippet.textContent).toBe("The parser is a Pratt parser.");
    expect([...snippet.querySelectorAll("mark")].map((m) => m.textContent)).toEqual(["parser", "parser"]);

    // What a tool printed is shown as it is, never read as HTML.
    expect(within(result!).getByTestId("search-hit-title").textContent).toBe("New session");
    expect(within(result!).getByTestId("search-hit-kind").textContent).toBe("tool result");
    const injected = within(result!).getByTestId("search-hit-snippet");
    expect(injected.textContent).toBe("<img src=x onerror=alert(1)> parser");
    expect(injected.querySelector("img")).toBeNull();
    expect(document.querySelector("[data-testid=sidebar] img")).toBeNull();

    expect(within(call!).getByTestId("search-hit-kind").textContent).toBe("command/input");
    expect(within(title!).getByTestId("search-hit-kind").textContent).toBe("title");
    expect(within(title!).queryByTestId("search-hit-turn")).toBeNull();

    // Clearing the search clears the hits.
    await user.clear(search());
    await waitFor(() => expect(screen.queryByTestId("search-hits")).toBeNull());
    expect(live.called("search_sessions").some((a) => a.query === "")).toBe(false);
  });

  it("never lets an older answer replace a newer one", async () => {
    // The answer to "pars" is held until after the one to "parser" came.
    let answerSlow: (hits: SessionSearchHit[]) => void = () => {};
    const { live, user } = shell({
      hits: (_path, query) =>
        query === "pars"
          ? new Promise<SessionSearchHit[]>((resolve) => (answerSlow = resolve))
          : [searchHit("a1", [["the ", false], ["parser", true]], { turn: 2 })],
    });
    await waitFor(() => expect(within(project(ALPHA)).getAllByTestId("sidebar-session")).toHaveLength(1));
    await user.type(search(), "pars");
    await waitFor(() => expect(live.called("search_sessions")).toEqual([{ projectPath: ALPHA, query: "pars" }]));
    await user.type(search(), "er");
    await waitFor(() => expect(hitsOf(ALPHA)).toHaveLength(1));
    expect(hitsOf(ALPHA)[0]!.dataset.turn).toBe("2");

    answerSlow([searchHit("old", [["stale", true]]), searchHit("old", [["stale", true]])]);
    await new Promise((r) => setTimeout(r, 50));
    expect(hitsOf(ALPHA).map((h) => h.dataset.sessionId)).toEqual(["a1"]);
  });

  it("opens a session that is not open at a tool result: resumed as its row would be, the card scrolled to, its result open and lit", async () => {
    const { live, user } = shell({
      hits: () => [searchHit("a1", [["test result: ", false], ["FAILED", true]], { kind: "tool_result", turn: 2, tool_use_id: "tu-test" })],
    });
    await waitFor(() => expect(within(project(ALPHA)).getAllByTestId("sidebar-session")).toHaveLength(1));
    await user.type(search(), "failed");
    await waitFor(() => expect(hitsOf(ALPHA)).toHaveLength(1));
    expect(screen.queryAllByTestId("session-view")).toHaveLength(0);

    await user.click(hitsOf(ALPHA)[0]!);
    await waitFor(() => expect(live.called("start_session")).toEqual([{ projectPath: ALPHA, resume: "a1" }]));
    const view = await waitFor(() => {
      const v = shownScreen();
      expect(v.dataset.sessionId).toBe("a1");
      return v;
    });
    const card = view.querySelector<HTMLElement>('[data-testid=tool-card][data-tool-use-id="tu-test"]')!;
    await waitFor(() => expect(scrolled).toContain(card));
    expect(within(card).getByTestId("tool-expand").getAttribute("aria-expanded")).toBe("true");
    expect(within(card).getByTestId("tool-result").textContent).toContain("3 passed; 1 failed");
    expect(card.classList.contains("flash")).toBe(true);
  });

  it("opens a live session at a prompt hit and scrolls to that prompt; Down from the box and Enter open a hit from the keyboard", async () => {
    const { live, user } = shell({
      hits: () => [
        searchHit("a1", [["read the ", false], ["parser", true]], { kind: "prompt", turn: 1 }),
        searchHit("a1", [["The ", false], ["parser", true], [" is a Pratt parser.", false]], { kind: "reply", turn: 1 }),
      ],
    });
    await waitFor(() => expect(within(project(ALPHA)).getAllByTestId("sidebar-session")).toHaveLength(1));
    // Open it first: a hit in a live session shows it without resuming it again.
    await user.click(within(project(ALPHA)).getAllByTestId("sidebar-session")[0]!);
    await waitFor(() => expect(shownScreen().dataset.sessionId).toBe("a1"));
    await user.type(search(), "parser");
    await waitFor(() => expect(hitsOf(ALPHA)).toHaveLength(2));
    scrolled.length = 0;

    await user.keyboard("{ArrowDown}");
    expect(document.activeElement).toBe(hitsOf(ALPHA)[0]);
    await user.keyboard("{ArrowDown}");
    expect(document.activeElement).toBe(hitsOf(ALPHA)[1]);
    await user.keyboard("{ArrowUp}{ArrowUp}");
    expect(document.activeElement).toBe(search());
    await user.keyboard("{ArrowDown}{Enter}");

    const prompt = shownScreen().querySelector<HTMLElement>('[data-testid=user-message][data-turn="1"]')!;
    await waitFor(() => expect(scrolled).toContain(prompt));
    expect(prompt.classList.contains("flash")).toBe(true);
    expect(live.called("start_session")).toHaveLength(1);
  });

  it("says why a session could not be opened", async () => {
    const { user } = shell({
      hits: () => [searchHit("gone", [["parser", true]])],
      handlers: {
        start_session: () => {
          throw "no such session: gone";
        },
      },
    });
    await waitFor(() => expect(within(project(ALPHA)).getAllByTestId("sidebar-session")).toHaveLength(1));
    await user.type(search(), "parser");
    await waitFor(() => expect(hitsOf(ALPHA)).toHaveLength(1));
    await user.click(hitsOf(ALPHA)[0]!);
    await waitFor(() => expect(screen.getByTestId("sidebar-error").textContent).toContain("no such session: gone"));
  });
});
