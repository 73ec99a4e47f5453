// The sessions sidebar in the whole app: several live sessions at once (every one's screen stays
// mounted), badges for running and waiting ones, the window title counting every session's
// approvals, search in the engine, rename, fork, close, delete, and the demo.
import { afterEach, describe, expect, it } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import App from "../App.svelte";
import type { DeletedSession } from "../bindings/DeletedSession";
import type { DemoStarted } from "../bindings/DemoStarted";
import type { TranscriptSummary } from "../bindings/TranscriptSummary";
import { bashRequest, editRequest, queued, sessionSummary } from "./fixtures";
import { appState, liveSession, projectInfo, sessionInfo, type Handler, type Live } from "./live";

const ALPHA = "/home/me/projects/alpha";
const BETA = "/home/me/work/beta";

/** Listed sessions changed a few minutes ago (the sidebar shows relative times). */
const summary = (id: string, fields: Partial<TranscriptSummary> = {}): TranscriptSummary =>
  sessionSummary(id, { modified_ms: Date.now() - 5 * 60_000, created_ms: Date.now() - 60 * 60_000, ...fields });

interface Options {
  recent?: string[];
  /** Each project's sessions as the engine lists them (mutable: a test changes them). */
  listings?: Record<string, TranscriptSummary[]>;
  hasKey?: boolean;
  handlers?: Record<string, Handler>;
}

/** The app against a shell with several projects: start_session gives each new session its own id
 *  (a resumed one keeps its id); list_sessions answers from `listings`. */
function shell({ recent = [ALPHA], listings = {}, hasKey = true, handlers = {} }: Options = {}) {
  let started = 0;
  const live = liveSession(sessionInfo(), {
    get_app_state: () => ({ ...appState(), has_api_key: hasKey, recent_projects: recent }),
    open_project: ({ path }) => ({ ...projectInfo(String(path)), sessions: listings[String(path)] ?? [] }),
    start_session: ({ projectPath, resume }) =>
      sessionInfo({ session_id: (resume as string | null) ?? `new-${++started}`, project_path: String(projectPath) }),
    list_sessions: ({ projectPath }) => listings[String(projectPath)] ?? [],
    // The sidebar's toggle saves whether it is hidden (see AppStart.test.ts): stored as given.
    save_settings: ({ settings }) => settings,
    ...handlers,
  });
  const user = userEvent.setup();
  render(App);
  return { live, user, listings };
}

const project = (path: string) => screen.getAllByTestId("sidebar-project").find((p) => p.dataset.path === path)!;
const rows = (path: string) => within(project(path)).queryAllByTestId("sidebar-session");
const row = (id: string) => screen.getAllByTestId("sidebar-session").find((r) => r.dataset.sessionId === id)!;
const rowIds = (path: string) => rows(path).map((r) => r.dataset.sessionId);
/** The visible session's screen (the others are mounted, hidden). */
const shownScreen = () => {
  const shown = screen.getAllByTestId("session-view").filter((s) => !s.hidden);
  expect(shown).toHaveLength(1);
  return shown[0]!;
};
const shownPrompt = () => within(shownScreen()).getByTestId("prompt-input") as HTMLTextAreaElement;
/** The turn (held open) that send_prompt started for a session. */
const turnOf = (live: Live, sessionId: string) => {
  const i = live.called("send_prompt").findIndex((a) => a.sessionId === sessionId);
  return live.turns[i]!;
};

async function openMenu(user: ReturnType<typeof userEvent.setup>, id: string) {
  await user.click(within(row(id)).getByTestId("session-menu"));
}

afterEach(() => {
  document.title = "";
});

describe("The sidebar's listing", () => {
  it("lists the projects' sessions, resumes one on click and shows badges for running and waiting sessions", async () => {
    const { live, user } = shell({
      recent: [ALPHA, BETA],
      listings: {
        [ALPHA]: [summary("a1", { title: "Fix the parser", cost_usd: 0.1234 }), summary("a2", { title: "" })],
        [BETA]: [summary("b1")],
      },
    });
    const sidebar = await screen.findByTestId("sidebar");
    await waitFor(() => expect(rowIds(ALPHA)).toEqual(["a1", "a2"]));
    expect(rowIds(BETA)).toEqual(["b1"]);
    // The folder's name prominent, the parent quiet, the whole path on hover.
    const alpha = project(ALPHA);
    expect(alpha.textContent).toContain("alpha");
    expect(alpha.querySelector("[title='/home/me/projects/alpha']")).toBeTruthy();
    expect(within(row("a1")).getByTestId("sidebar-session-title").textContent).toBe("Fix the parser");
    expect(row("a1").textContent).toContain("$0.12");
    expect(row("a1").textContent).toContain("5 min ago");
    expect(within(row("a2")).getByTestId("sidebar-session-title").textContent).toBe("New session");
    expect(row("a1").dataset.live).toBe("false");
    expect(screen.getByTestId("project-picker")).toBeTruthy();
    expect(live.called("list_sessions")).toEqual(
      expect.arrayContaining([
        { projectPath: ALPHA, query: null },
        { projectPath: BETA, query: null },
      ]),
    );

    // A click on a session that is not live resumes it and shows it.
    await user.click(row("a1"));
    await waitFor(() => expect(row("a1").dataset.live).toBe("true"));
    expect(live.called("start_session")).toEqual([{ projectPath: ALPHA, resume: "a1" }]);
    expect(row("a1").getAttribute("aria-current")).toBe("true");
    expect(screen.queryByTestId("project-picker")).toBeNull();
    await user.type(shownPrompt(), "go{Enter}");
    await waitFor(() => expect(within(row("a1")).getByTestId("badge-running").textContent).toContain("running"));
    expect(within(row("a1")).queryByTestId("badge-waiting")).toBeNull();

    // A new session in the other project: listed at once (nothing written yet), shown.
    await user.click(within(project(BETA)).getByTestId("sidebar-new-session"));
    await waitFor(() => expect(rowIds(BETA)).toEqual(["new-1", "b1"]));
    expect(row("new-1").dataset.live).toBe("true");
    expect(row("new-1").getAttribute("aria-current")).toBe("true");
    expect(row("a1").getAttribute("aria-current")).toBeNull();
    expect(within(row("new-1")).getByTestId("sidebar-session-title").textContent).toBe("New session");
    await user.type(shownPrompt(), "change x{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(2));
    // Until the engine titles it, the first prompt does.
    expect(within(row("new-1")).getByTestId("sidebar-session-title").textContent).toBe("change x");
    const turn = turnOf(live, "new-1");
    turn.send(queued("tu-r-bash", 1, false, "Bash"));
    turn.send({ type: "permission_requested", request: bashRequest() });
    await waitFor(() => expect(within(row("new-1")).getByTestId("badge-waiting").textContent).toContain("1 waiting"));
    expect(within(row("new-1")).queryByTestId("badge-running")).toBeNull();
    // The other one still runs, hidden.
    expect(within(row("a1")).getByTestId("badge-running")).toBeTruthy();

    // A turn's end lists the project again (its title and cost changed).
    const before = live.called("list_sessions").filter((a) => a.projectPath === ALPHA).length;
    turnOf(live, "a1").finish();
    await waitFor(() => expect(live.called("list_sessions").filter((a) => a.projectPath === ALPHA).length).toBe(before + 1));
    await waitFor(() => expect(within(row("a1")).queryByTestId("badge-running")).toBeNull());
    expect(sidebar.contains(screen.getByTestId("sidebar-open-project"))).toBe(true);
  });

  it("shows at most 20 sessions of a project until asked for all", async () => {
    const many = Array.from({ length: 25 }, (_, i) => summary(`s${i}`));
    const { user } = shell({ listings: { [ALPHA]: many } });
    await waitFor(() => expect(rows(ALPHA)).toHaveLength(20));
    await user.click(within(project(ALPHA)).getByTestId("sidebar-show-all"));
    expect(rows(ALPHA)).toHaveLength(25);
  });

  it("folds a project's sessions away and opens them again", async () => {
    const { user } = shell({ listings: { [ALPHA]: [summary("a1")] } });
    await waitFor(() => expect(rows(ALPHA)).toHaveLength(1));
    const toggle = within(project(ALPHA)).getByRole("button", { expanded: true });
    await user.click(toggle);
    expect(rows(ALPHA)).toHaveLength(0);
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    await user.click(toggle);
    expect(rows(ALPHA)).toHaveLength(1);
  });
});

describe("Several live sessions", () => {
  it("keeps both mounted when switching: the running turn, the half-typed prompt and the dialog stay", async () => {
    const { live, user } = shell({ recent: [ALPHA] });
    await user.click(await within(await screen.findByTestId("sidebar")).findByTestId("sidebar-new-session"));
    await waitFor(() => expect(row("new-1")).toBeTruthy());
    await user.type(shownPrompt(), "first{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    turnOf(live, "new-1").send(queued("tu-r-edit", 1, false, "Edit"));
    turnOf(live, "new-1").send({ type: "permission_requested", request: editRequest() });
    await within(shownScreen()).findByTestId("permission-dialog");

    await user.click(within(project(ALPHA)).getByTestId("sidebar-new-session"));
    await waitFor(() => expect(row("new-2").getAttribute("aria-current")).toBe("true"));
    expect(screen.getAllByTestId("session-view")).toHaveLength(2);
    expect(shownScreen().dataset.sessionId).toBe("new-2");
    await user.type(shownPrompt(), "half-typed");

    await user.click(row("new-1"));
    expect(shownScreen().dataset.sessionId).toBe("new-1");
    expect(within(shownScreen()).getByTestId("permission-dialog")).toBeTruthy();
    await waitFor(() => expect(document.activeElement).toBe(within(shownScreen()).getByTestId("permission-dialog")));
    expect(live.turns[0]!.settled).toBe(false);
    expect(live.called("end_session")).toEqual([]);

    await user.click(row("new-2"));
    expect(shownScreen().dataset.sessionId).toBe("new-2");
    expect(shownPrompt().value).toBe("half-typed");
    expect(live.called("start_session")).toHaveLength(2); // switching resumed nothing
  });

  it("titles the window with the approvals waiting in every session, and leads back to one from Settings", async () => {
    const { live, user } = shell({ recent: [ALPHA, BETA] });
    await user.click(await within(await screen.findByTestId("sidebar")).findAllByTestId("sidebar-new-session").then((b) => b[0]!));
    await waitFor(() => expect(document.title).toBe("Nerve — alpha"));
    await user.type(shownPrompt(), "one{Enter}");
    await user.click(within(project(BETA)).getByTestId("sidebar-new-session"));
    await waitFor(() => expect(document.title).toBe("Nerve — beta"));
    await user.type(shownPrompt(), "two{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(2));

    // A request in the hidden session counts too.
    const hidden = turnOf(live, "new-1");
    hidden.send(queued("tu-r-bash", 1, false, "Bash"));
    hidden.send({ type: "permission_requested", request: bashRequest() });
    await waitFor(() => expect(document.title).toBe("(1) Nerve — beta"));
    const shown = turnOf(live, "new-2");
    shown.send(queued("tu-r-edit", 1, false, "Edit"));
    shown.send({ type: "permission_requested", request: editRequest() });
    await waitFor(() => expect(document.title).toBe("(2) Nerve — beta"));

    await user.click(within(shownScreen()).getByTestId("deny"));
    await waitFor(() => expect(document.title).toBe("(1) Nerve — beta"));

    // Over Settings, the waiting request of the hidden session is announced and leads back to it.
    await user.click(screen.getByTestId("open-settings"));
    const waiting = await screen.findByTestId("approvals-waiting");
    expect(waiting.textContent).toContain("A permission request waits");
    await user.click(screen.getByTestId("approvals-waiting-show"));
    expect(screen.queryByTestId("settings-panel")).toBeNull();
    expect(shownScreen().dataset.sessionId).toBe("new-1");
    expect(row("new-1").getAttribute("aria-current")).toBe("true");
    await waitFor(() => expect(document.title).toBe("(1) Nerve — alpha"));
  });

  it("/clear replaces only the session it was typed in", async () => {
    const { live, user } = shell({ recent: [ALPHA] });
    await user.click(await within(await screen.findByTestId("sidebar")).findByTestId("sidebar-new-session"));
    await waitFor(() => expect(row("new-1")).toBeTruthy());
    await user.click(within(project(ALPHA)).getByTestId("sidebar-new-session"));
    await waitFor(() => expect(row("new-2").getAttribute("aria-current")).toBe("true"));
    await user.type(shownPrompt(), "/clear{Enter}");
    await waitFor(() => expect(live.called("end_session")).toEqual([{ sessionId: "new-2" }]));
    await waitFor(() => expect(shownScreen().dataset.sessionId).toBe("new-3"));
    expect(screen.getAllByTestId("session-view").map((s) => s.dataset.sessionId)).toEqual(["new-1", "new-3"]);
  });
});

describe("Keys in the sidebar", () => {
  it("Escape there leaves the shown session's turn running; a row opens with Enter", async () => {
    const { live, user } = shell({ listings: { [ALPHA]: [summary("a1")] } });
    await waitFor(() => expect(rows(ALPHA)).toHaveLength(1));
    await user.click(within(project(ALPHA)).getByTestId("sidebar-new-session"));
    await waitFor(() => expect(row("new-1")).toBeTruthy());
    await user.type(shownPrompt(), "go{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    await user.type(screen.getByTestId("sidebar-search"), "x");
    await user.keyboard("{Escape}{Escape}");
    expect((screen.getByTestId("sidebar-search") as HTMLInputElement).value).toBe("");
    await user.click(within(row("a1")).getByTestId("session-menu"));
    await user.keyboard("{Escape}");
    expect(live.called("abort_turn")).toEqual([]);

    // The row's own button takes Enter.
    within(row("a1")).getAllByRole("button")[0]!.focus();
    await user.keyboard("{Enter}");
    await waitFor(() => expect(row("a1").getAttribute("aria-current")).toBe("true"));
    expect(live.called("start_session").at(-1)).toEqual({ projectPath: ALPHA, resume: "a1" });
    expect(live.called("abort_turn")).toEqual([]);
  });
});

describe("Searching sessions", () => {
  it("lists every shown project again through list_sessions with the query, once typing pauses, and shows the matched prompt", async () => {
    const found = summary("a7", { title: "Refactor the lexer", matched_prompt: "and fix the parser bug too" });
    const { live, user } = shell({
      recent: [ALPHA, BETA],
      handlers: {
        list_sessions: ({ projectPath, query }) => {
          if (query === null) return projectPath === ALPHA ? [summary("a1"), { ...found, matched_prompt: null }] : [summary("b1")];
          return projectPath === ALPHA && query === "parser" ? [found] : [];
        },
      },
    });
    await waitFor(() => expect(rows(ALPHA)).toHaveLength(2));
    expect(within(row("a7")).queryByTestId("sidebar-session-match")).toBeNull();
    const search = screen.getByTestId("sidebar-search") as HTMLInputElement;
    expect(search.placeholder).toBe("Search sessions");
    await user.type(search, "parser");
    await waitFor(() => expect(rowIds(ALPHA)).toEqual(["a7"]));
    expect(rowIds(BETA)).toEqual([]);
    const queried = live.called("list_sessions").filter((a) => a.query !== null);
    // Debounced: one search per project, with the whole query.
    expect(queried).toEqual([
      { projectPath: ALPHA, query: "parser" },
      { projectPath: BETA, query: "parser" },
    ]);
    expect(within(row("a7")).getByTestId("sidebar-session-match").textContent).toBe("and fix the parser bug too");
    expect(within(project(BETA)).getByTestId("sidebar-no-sessions").textContent).toBe("No matching sessions");

    await user.clear(search);
    await waitFor(() => expect(rowIds(ALPHA)).toEqual(["a1", "a7"]));
  });
});

describe("A session's menu", () => {
  it("renames a session inline: Enter saves through rename_session, Esc cancels, a refusal shows", async () => {
    const listings = { [ALPHA]: [summary("a1", { title: "Fix the parser" })] };
    const { live, user } = shell({
      listings,
      handlers: {
        rename_session: ({ title }) => {
          if (String(title).trim() === "") throw "a session's name cannot be blank";
          listings[ALPHA] = [summary("a1", { title: String(title), named: true })];
          return title;
        },
      },
    });
    await waitFor(() => expect(rows(ALPHA)).toHaveLength(1));
    await openMenu(user, "a1");
    await user.click(screen.getByTestId("session-rename"));
    const input = screen.getByTestId("session-rename-input") as HTMLInputElement;
    expect(input.value).toBe("Fix the parser");
    expect(document.activeElement).toBe(input);
    await user.keyboard("{Escape}");
    expect(screen.queryByTestId("session-rename-input")).toBeNull();
    expect(live.called("rename_session")).toEqual([]);

    await openMenu(user, "a1");
    await user.click(screen.getByTestId("session-rename"));
    await user.clear(screen.getByTestId("session-rename-input"));
    await user.type(screen.getByTestId("session-rename-input"), "   {Enter}");
    expect((await screen.findByTestId("session-rename-error")).textContent).toContain("cannot be blank");
    expect(screen.getByTestId("session-rename-input")).toBeTruthy();

    await user.clear(screen.getByTestId("session-rename-input"));
    await user.type(screen.getByTestId("session-rename-input"), "Parser rewrite{Enter}");
    await waitFor(() => expect(screen.queryByTestId("session-rename-input")).toBeNull());
    expect(live.called("rename_session").at(-1)).toEqual({ projectPath: ALPHA, sessionId: "a1", title: "Parser rewrite" });
    await waitFor(() => expect(within(row("a1")).getByTestId("sidebar-session-title").textContent).toBe("Parser rewrite"));
    expect(live.called("start_session")).toEqual([]); // renaming resumed nothing
  });

  it("forks a session and shows the fork as a live session", async () => {
    const listings = { [ALPHA]: [summary("a1", { title: "Fix the parser" })] };
    const { live, user } = shell({
      listings,
      handlers: {
        fork_session: () => {
          listings[ALPHA] = [summary("f1", { title: "Fix the parser", forked_from: "a1" }), ...listings[ALPHA]!];
          return "f1";
        },
      },
    });
    await waitFor(() => expect(rows(ALPHA)).toHaveLength(1));
    await openMenu(user, "a1");
    await user.click(screen.getByTestId("session-fork"));
    await waitFor(() => expect(row("f1")?.getAttribute("aria-current")).toBe("true"));
    expect(live.called("fork_session")).toEqual([{ projectPath: ALPHA, sessionId: "a1", beforeTurn: null }]);
    expect(live.called("start_session")).toEqual([{ projectPath: ALPHA, resume: "f1" }]);
    expect(row("f1").dataset.live).toBe("true");
    expect(row("a1").dataset.live).toBe("false");
    expect(shownScreen().dataset.sessionId).toBe("f1");
    // The fork's row says where it came from.
    expect(within(row("f1")).getByTestId("sidebar-session-forked").textContent).toBe("forked from “Fix the parser”");
    expect(within(row("a1")).queryByTestId("sidebar-session-forked")).toBeNull();
  });

  it("deletes a session after an inline confirmation and says what that freed", async () => {
    const listings = { [ALPHA]: [summary("a1", { title: "Fix the parser" }), summary("a2")] };
    const deleted: DeletedSession = { bytes: 1.2 * 1024 * 1024, outputs: 3, kept_branch: null };
    const { live, user } = shell({
      listings,
      handlers: {
        delete_session: ({ sessionId }) => {
          listings[ALPHA] = listings[ALPHA]!.filter((s) => s.session_id !== sessionId);
          return deleted;
        },
      },
    });
    await waitFor(() => expect(rows(ALPHA)).toHaveLength(2));
    await openMenu(user, "a1");
    await user.click(screen.getByTestId("session-delete"));
    const confirm = screen.getByTestId("session-delete-confirm");
    expect(confirm.textContent).toContain("Delete this session for good? Its transcript, checkpoints and saved outputs are removed.");
    await user.click(screen.getByTestId("session-delete-no"));
    expect(screen.queryByTestId("session-delete-confirm")).toBeNull();
    expect(live.called("delete_session")).toEqual([]);

    await openMenu(user, "a1");
    await user.click(screen.getByTestId("session-delete"));
    await user.click(screen.getByTestId("session-delete-yes"));
    const note = await screen.findByTestId("session-deleted-note");
    expect(note.textContent).toContain("Deleted “Fix the parser”: 1.2 MB freed, 3 outputs");
    expect(live.called("delete_session")).toEqual([{ projectPath: ALPHA, sessionId: "a1" }]);
    // The row goes with the note, not only once the project is listed again.
    expect(rowIds(ALPHA)).toEqual(["a2"]);
    await waitFor(() => expect(live.called("list_sessions").filter((a) => a.projectPath === ALPHA)).toHaveLength(2));
    expect(live.called("start_session")).toEqual([]);
  });

  it("deleting the shown live session shows the next live one, then the project picker", async () => {
    const { live, user } = shell({ handlers: { delete_session: () => ({ bytes: 512, outputs: 1 }) } });
    await user.click(await within(await screen.findByTestId("sidebar")).findByTestId("sidebar-new-session"));
    await waitFor(() => expect(row("new-1")).toBeTruthy());
    await user.click(within(project(ALPHA)).getByTestId("sidebar-new-session"));
    await waitFor(() => expect(row("new-2").getAttribute("aria-current")).toBe("true"));

    await openMenu(user, "new-2");
    await user.click(screen.getByTestId("session-delete"));
    await user.click(screen.getByTestId("session-delete-yes"));
    expect((await screen.findByTestId("session-deleted-note")).textContent).toContain("Deleted “New session”: 512 B freed, 1 output");
    await waitFor(() => expect(shownScreen().dataset.sessionId).toBe("new-1"));
    expect(row("new-1").getAttribute("aria-current")).toBe("true");

    await openMenu(user, "new-1");
    await user.click(screen.getByTestId("session-delete"));
    await user.click(screen.getByTestId("session-delete-yes"));
    await screen.findByTestId("project-picker");
    expect(screen.queryAllByTestId("session-view")).toHaveLength(0);
    // The engine ended them itself.
    expect(live.called("end_session")).toEqual([]);
  });

  it("closes a live session, asking first while it runs", async () => {
    const { live, user } = shell();
    await user.click(await within(await screen.findByTestId("sidebar")).findByTestId("sidebar-new-session"));
    await waitFor(() => expect(row("new-1")).toBeTruthy());
    await user.type(shownPrompt(), "go{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));

    await openMenu(user, "new-1");
    await user.click(screen.getByTestId("session-close"));
    const confirm = screen.getByTestId("session-close-confirm");
    expect(confirm.textContent).toContain("A turn is running");
    expect(live.called("end_session")).toEqual([]);
    await user.click(screen.getByTestId("session-close-yes"));
    await waitFor(() => expect(live.called("end_session")).toEqual([{ sessionId: "new-1" }]));
    await screen.findByTestId("project-picker");
    expect(screen.queryAllByTestId("session-view")).toHaveLength(0);
  });

  it("offers Close only for live sessions, and closes an idle one at once", async () => {
    const { live, user } = shell({ listings: { [ALPHA]: [summary("a1")] } });
    await waitFor(() => expect(rows(ALPHA)).toHaveLength(1));
    await openMenu(user, "a1");
    expect(screen.queryByTestId("session-close")).toBeNull();
    await user.click(row("a1"));
    await waitFor(() => expect(row("a1").dataset.live).toBe("true"));
    await openMenu(user, "a1");
    await user.click(screen.getByTestId("session-close"));
    expect(screen.queryByTestId("session-close-confirm")).toBeNull();
    await waitFor(() => expect(live.called("end_session")).toEqual([{ sessionId: "a1" }]));
    await waitFor(() => expect(row("a1").dataset.live).toBe("false"));
  });
});

describe("The demo", () => {
  const DEMO_PATH = "/tmp/nerve-demo-1234/sample";
  const demoStarted = (id = "demo-1"): DemoStarted => ({
    session: sessionInfo({ session_id: id, project_path: DEMO_PATH, demo: true }),
    prompt: "Show me around this project and fix what you find.",
  });

  it("starts from the first-run screen, shows its session with a banner and sends its prompt as if typed", async () => {
    const { live, user } = shell({ hasKey: false, recent: [], handlers: { start_demo: () => demoStarted() } });
    await screen.findByTestId("first-run");
    const offer = screen.getByTestId("demo-offer");
    expect(offer.textContent).toContain(
      "A sample project in a temporary folder and a scripted model: real tools and real permission dialogs, nothing of yours is touched.",
    );
    expect(screen.queryByTestId("sidebar")).toBeNull();
    await user.click(within(offer).getByTestId("start-demo"));

    await screen.findByTestId("sidebar");
    expect(screen.queryByTestId("first-run")).toBeNull();
    expect(screen.getByTestId("demo-banner").textContent).toContain(
      `Demo — a scripted model in a sample project (${DEMO_PATH}). Add an API key in Settings to work on your own projects.`,
    );
    await waitFor(() => expect(live.called("send_prompt")).toHaveLength(1));
    expect(live.called("send_prompt")[0]).toMatchObject({ sessionId: "demo-1", prompt: "Show me around this project and fix what you find." });
    expect(live.called("start_demo")).toHaveLength(1);
    // Sent as if typed: the session runs, and Up recalls the prompt.
    expect(within(shownScreen()).getByTestId("turn-status").textContent?.trim()).toBe("running");
    await user.click(shownPrompt());
    await user.keyboard("{ArrowUp}");
    expect(shownPrompt().value).toBe("Show me around this project and fix what you find.");
    await user.clear(shownPrompt());
    expect(row("demo-1").dataset.live).toBe("true");
    expect(project(DEMO_PATH)).toBeTruthy();
    // Settings are there, to add a key.
    expect(screen.getByTestId("open-settings")).toBeTruthy();

    // Closing the only session without a key goes back to the first run.
    live.turns[0]!.finish();
    await waitFor(() => expect(within(shownScreen()).getByTestId("turn-status").textContent?.trim()).toBe("idle"));
    await user.click(within(shownScreen()).getByTestId("close-session"));
    await screen.findByTestId("first-run");
  });

  it("starts again from the sidebar, the earlier demo's screen going", async () => {
    let n = 0;
    const { live, user } = shell({ handlers: { start_demo: () => demoStarted(`demo-${++n}`) } });
    await user.click(await screen.findByTestId("sidebar-demo"));
    await waitFor(() => expect(shownScreen().dataset.sessionId).toBe("demo-1"));
    await user.click(screen.getByTestId("sidebar-demo"));
    await waitFor(() => expect(shownScreen().dataset.sessionId).toBe("demo-2"));
    expect(screen.getAllByTestId("session-view").map((s) => s.dataset.sessionId)).toEqual(["demo-2"]);
    expect(live.called("send_prompt").map((a) => a.sessionId)).toEqual(["demo-1", "demo-2"]);
  });

  it("says why the demo did not start", async () => {
    const { user } = shell({
      hasKey: false,
      handlers: {
        start_demo: () => {
          throw "could not create the sample project";
        },
      },
    });
    await user.click(await screen.findByTestId("start-demo"));
    expect((await screen.findByTestId("demo-error")).textContent).toContain("could not create the sample project");
    expect(screen.getByTestId("first-run")).toBeTruthy();
  });
});

describe("Narrow windows", () => {
  const width = window.innerWidth;
  afterEach(() => {
    window.innerWidth = width;
  });

  it("start with the sidebar collapsed to a strip whose toggle opens it", async () => {
    window.innerWidth = 800;
    const { user } = shell();
    const toggle = await screen.findByTestId("sidebar-toggle");
    expect(toggle.getAttribute("aria-label")).toBe("Show sessions");
    expect(screen.queryByTestId("sidebar-search")).toBeNull();
    await user.click(toggle);
    expect(toggle.getAttribute("aria-label")).toBe("Hide sessions");
    expect(screen.getByTestId("sidebar-search")).toBeTruthy();
    await user.click(toggle);
    expect(screen.queryByTestId("sidebar-search")).toBeNull();
  });

  it("open wide, and the toggle collapses it there too", async () => {
    window.innerWidth = 1280;
    const { user } = shell();
    const toggle = await screen.findByTestId("sidebar-toggle");
    expect(toggle.getAttribute("aria-label")).toBe("Hide sessions");
    expect(screen.getByTestId("sidebar-search")).toBeTruthy();
    await user.click(toggle);
    expect(toggle.getAttribute("aria-label")).toBe("Show sessions");
    expect(screen.queryByTestId("sidebar-search")).toBeNull();
  });
});
