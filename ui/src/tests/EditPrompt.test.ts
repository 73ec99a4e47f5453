// Editing an earlier prompt in place and resending it (the files put back first when asked; a fork
// of the session from just before the prompt takes its place and gets the new text, the old
// session stays in the sidebar), and forking a new session from any prompt; in the whole app
// against a mocked shell.
import { describe, expect, it } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import App from "../App.svelte";
import type { HistoryMessage } from "../bindings/HistoryMessage";
import type { MessageImage } from "../bindings/MessageImage";
import type { PromptInfo } from "../bindings/PromptInfo";
import type { RewindOutcome } from "../bindings/RewindOutcome";
import type { RewindRequest } from "../bindings/RewindRequest";
import type { TranscriptSummary } from "../bindings/TranscriptSummary";
import { planned, promptInfo, rewindPlan, sessionSummary } from "./fixtures";
import { liveSession, projectInfo, sessionInfo, appState, type Handler } from "./live";
import { answered, said } from "./messages";

const ROOT = "/home/me/projects/nerve-demo";
const A = `${ROOT}/src/a.rs`;
const B = `${ROOT}/src/b.rs`;
const NEW = `${ROOT}/new.py`;
const PNG: MessageImage = { media_type: "image/png", data: "iVBORw0KGgo=" };

// Two prompts; Stop hook feedback (a user message that is no prompt) sits between them.
const HISTORY: HistoryMessage[] = [
  said("first"),
  answered("one"),
  said("Stop hook feedback:\nrun the linter"),
  answered("linted"),
  said("second", [PNG]),
  answered("two"),
];
const prompts: PromptInfo[] = [promptInfo(1, "first", 0), promptInfo(2, "second", 4)];

const summary = (id: string, fields: Partial<TranscriptSummary> = {}): TranscriptSummary =>
  sessionSummary(id, { modified_ms: Date.now() - 5 * 60_000, created_ms: Date.now() - 60 * 60_000, ...fields });

/** The commands a resend or a fork is made of (the others, such as list_commands, left out). */
const FLOW = new Set(["rewind_session", "fork_session", "open_project", "start_session", "end_session", "send_prompt"]);

/**
 * The app with session s1 ("Fix the parser": the history above) resumed from the sidebar. Each
 * fork gets the next id (f1, f2…) and is listed at once as forked from s1; resumed, a fork holds
 * the conversation before the prompt asked for (the whole of it without one).
 */
async function setup(handlers: Record<string, Handler> = {}, { history = HISTORY }: { history?: HistoryMessage[] } = {}) {
  const listings: TranscriptSummary[] = [summary("s1", { title: "Fix the parser" })];
  const forks = new Map<string, number | null>();
  const live = liveSession(sessionInfo(), {
    get_app_state: () => ({ ...appState(), recent_projects: [ROOT] }),
    open_project: ({ path }) => ({ ...projectInfo(String(path)), sessions: listings }),
    list_sessions: () => listings,
    start_session: ({ resume }) => {
      const id = String(resume);
      if (id === "s1") return sessionInfo({ session_id: id, project_path: ROOT, history, prompts });
      const before = forks.get(id) ?? null;
      return sessionInfo({
        session_id: id,
        project_path: ROOT,
        history: before === 2 ? history.slice(0, 4) : history,
        prompts: before === 2 ? prompts.slice(0, 1) : prompts,
      });
    },
    fork_session: ({ beforeTurn }) => {
      const id = `f${forks.size + 1}`;
      forks.set(id, beforeTurn as number | null);
      listings.unshift(summary(id, { title: "Fix the parser", forked_from: "s1" }));
      return id;
    },
    plan_rewind: ({ toTurn }) => rewindPlan(Number(toTurn), [planned(A), planned(B, { changed_on_disk: true }), planned(NEW, { action: "delete" })]),
    rewind_session: ({ request }) => rewound(request as RewindRequest, history),
    ...handlers,
  });
  const user = userEvent.setup();
  render(App);
  await waitFor(() => expect(row("s1")).toBeTruthy());
  await user.click(row("s1"));
  await waitFor(() => expect(shownScreen().dataset.sessionId).toBe("s1"));
  return { live, user };
}

const rewound = (request: RewindRequest, history: HistoryMessage[]): RewindOutcome => ({
  report: {
    to_turn: request.to_turn,
    code: { to_turn: request.to_turn, restored: [planned(A), planned(NEW, { action: "delete" })], refused: [], unseen: [] },
    conversation: null,
  },
  history,
  past_calls: [],
  prompts,
});

const row = (id: string) => screen.queryAllByTestId("sidebar-session").find((r) => r.dataset.sessionId === id)!;
/** The visible session's screen (the others are mounted, hidden). */
const shownScreen = () => {
  const shown = screen.getAllByTestId("session-view").filter((s) => !s.hidden);
  expect(shown).toHaveLength(1);
  return shown[0]!;
};
const inShown = () => within(shownScreen());
const promptOf = (turn: number) => inShown().getAllByTestId("user-message").find((m) => m.dataset.turn === String(turn))!;
const editOf = (turn: number) => within(promptOf(turn)).getByTestId("prompt-edit") as HTMLButtonElement;
const forkOf = (turn: number) => within(promptOf(turn)).getByTestId("prompt-fork") as HTMLButtonElement;
const editor = () => inShown().getByTestId("prompt-editor");
const editorText = () => inShown().getByTestId("prompt-editor-text") as HTMLTextAreaElement;
const notices = () => inShown().getAllByTestId("notice").map((n) => n.textContent);
/** The flow's calls made since the `from`-th call. */
const flowSince = (live: ReturnType<typeof liveSession>, from: number) => live.calls.slice(from).filter((c) => FLOW.has(c.cmd));

describe("editing a prompt and resending it", () => {
  it("offers Edit and Fork on each prompt the engine lists, none on user text that is no prompt", async () => {
    await setup();
    const messages = inShown().getAllByTestId("user-message");
    expect(
      messages.map((m) => [
        within(m).getByTestId("user-text").textContent,
        within(m).queryByTestId("prompt-edit") !== null,
        within(m).queryByTestId("prompt-fork") !== null,
      ]),
    ).toEqual([
      ["first", true, true],
      ["Stop hook feedback:\nrun the linter", false, false],
      ["second", true, true],
    ]);
    expect(editOf(2).getAttribute("aria-label")).toBe("Edit and resend");
    expect(forkOf(2).getAttribute("aria-label")).toBe("Fork from here");
  });

  it("resends the edited text in a fork from before the prompt, which takes the session's place", async () => {
    const { live, user } = await setup();
    await user.click(editOf(2));
    expect(editorText().value).toBe("second");
    expect(document.activeElement).toBe(editorText());
    // The prompt's image goes again with it.
    expect(within(editor()).getByTestId("prompt-editor-images").textContent).toContain("Sent again with 1 image.");
    expect(within(editor()).queryByTestId("prompt-editor-images-note")).toBeNull();
    const code = (await within(editor()).findByTestId("prompt-editor-code")) as HTMLInputElement;
    expect(code.checked).toBe(false);
    expect(code.closest("label")!.textContent!.trim()).toBe("Also put the files back as they were before this prompt (3 files)");
    expect(live.called("plan_rewind")).toEqual([{ sessionId: "s1", toTurn: 2 }]);

    await user.clear(editorText());
    await user.type(editorText(), "second, but better");
    const from = live.calls.length;
    await user.click(within(editor()).getByTestId("prompt-editor-send"));

    await waitFor(() => expect(live.called("send_prompt")).toHaveLength(1));
    expect(flowSince(live, from)).toEqual([
      { cmd: "fork_session", args: { projectPath: ROOT, sessionId: "s1", beforeTurn: 2 } },
      { cmd: "open_project", args: { path: ROOT } },
      { cmd: "start_session", args: { projectPath: ROOT, resume: "f1" } },
      { cmd: "end_session", args: { sessionId: "s1" } },
      { cmd: "send_prompt", args: { sessionId: "f1", prompt: "second, but better", images: [{ name: "image 1", data: PNG.data }], attachments: [], onEvent: expect.anything() } },
    ]);
    // The fork shows in the main area, in the old session's place; the old one is no longer live.
    expect(screen.getAllByTestId("session-view").map((s) => s.dataset.sessionId)).toEqual(["f1"]);
    expect(shownScreen().dataset.sessionId).toBe("f1");
    expect(inShown().getAllByTestId("user-text").map((u) => u.textContent)).toEqual(["first", "Stop hook feedback:\nrun the linter"]);
    expect(notices()).toEqual(["Edited prompt 2: the earlier version stays in the session “Fix the parser” in the sidebar."]);
    // Both are in the sidebar: the earlier version as it was, the fork live and marked as a fork.
    await waitFor(() => expect(row("f1")?.dataset.live).toBe("true"));
    expect(row("s1").dataset.live).toBe("false");
    expect(row("f1").getAttribute("aria-current")).toBe("true");
    await waitFor(() => expect(within(row("f1")).getByTestId("sidebar-session-forked").textContent).toBe("forked from “Fix the parser”"));
    expect(within(row("s1")).queryByTestId("sidebar-session-forked")).toBeNull();
    expect(live.called("rewind_session")).toEqual([]);
  });

  it("puts the files back first when asked (Ctrl+Enter), with the files the user agreed to overwrite", async () => {
    const { live, user } = await setup();
    await user.click(editOf(2));
    await user.click(await within(editor()).findByTestId("prompt-editor-code"));
    // The files as the rewind dialog lists them: the one changed on disk is left alone unless ticked.
    const files = within(editor()).getAllByTestId("rewind-file");
    expect(files.map((f) => [f.dataset.path, f.dataset.action])).toEqual([
      [A, "write"],
      [B, "write"],
      [NEW, "delete"],
    ]);
    expect(within(files[1]!).getByTestId("rewind-left-alone")).toBeTruthy();
    await user.type(editorText(), " again");
    const from = live.calls.length;
    await user.keyboard("{Control>}{Enter}{/Control}");

    await waitFor(() => expect(live.called("send_prompt")).toHaveLength(1));
    expect(flowSince(live, from)).toEqual([
      { cmd: "rewind_session", args: { sessionId: "s1", request: { to_turn: 2, code: true, conversation: false, confirmed: [] } } },
      { cmd: "fork_session", args: { projectPath: ROOT, sessionId: "s1", beforeTurn: 2 } },
      { cmd: "open_project", args: { path: ROOT } },
      { cmd: "start_session", args: { projectPath: ROOT, resume: "f1" } },
      { cmd: "end_session", args: { sessionId: "s1" } },
      { cmd: "send_prompt", args: { sessionId: "f1", prompt: "second again", images: [{ name: "image 1", data: PNG.data }], attachments: [], onEvent: expect.anything() } },
    ]);
    expect(notices()).toEqual([
      "Rewound to before prompt 2: restored 2 files.",
      "Edited prompt 2: the earlier version stays in the session “Fix the parser” in the sidebar.",
    ]);
  });

  it("overwrites a file changed on disk only when the user ticked it", async () => {
    const { live, user } = await setup();
    await user.click(editOf(2));
    await user.click(await within(editor()).findByTestId("prompt-editor-code"));
    await user.click(within(editor()).getByTestId("rewind-confirm-file"));
    await user.click(within(editor()).getByTestId("prompt-editor-send"));
    await waitFor(() => expect(live.called("send_prompt")).toHaveLength(1));
    expect(live.called("rewind_session")).toEqual([{ sessionId: "s1", request: { to_turn: 2, code: true, conversation: false, confirmed: [B] } }]);
  });

  it("offers no code rewind when it would change no file", async () => {
    const { live, user } = await setup({ plan_rewind: ({ toTurn }) => rewindPlan(Number(toTurn), []) });
    await user.click(editOf(1));
    await waitFor(() => expect(live.called("plan_rewind")).toEqual([{ sessionId: "s1", toTurn: 1 }]));
    await waitFor(() => expect(editor().textContent).not.toContain("Checking whether files changed"));
    expect(within(editor()).queryByTestId("prompt-editor-code")).toBeNull();
    await user.click(within(editor()).getByTestId("prompt-editor-send"));
    await waitFor(() => expect(live.called("send_prompt")).toHaveLength(1));
    expect(live.called("rewind_session")).toEqual([]);
    expect(live.called("fork_session")).toEqual([{ projectPath: ROOT, sessionId: "s1", beforeTurn: 1 }]);
    expect(live.called("send_prompt")[0]).toEqual({ sessionId: "f1", prompt: "first", images: [], attachments: [], onEvent: expect.anything() });
  });

  it("says that the prompt's attachments do not go again", async () => {
    const { live, user } = await setup({}, { history: HISTORY.map((m, i) => (i === 4 ? said("second", [], [{ kind: "folder", label: "src/" }]) : m)) });
    await user.click(editOf(2));
    expect(within(editor()).getByTestId("prompt-editor-attachments-note").textContent!.replace(/\s+/g, " ").trim()).toBe(
      "1 attachment of this prompt (folders, pages, sessions, terminal selections) is not sent again: attach it anew with @ if needed.",
    );
    await user.click(within(editor()).getByTestId("prompt-editor-send"));
    await waitFor(() => expect(live.called("send_prompt")).toHaveLength(1));
    expect(live.called("send_prompt")[0]!.attachments).toEqual([]);
  });

  it("says when some of the prompt's images cannot go again", async () => {
    const svg: MessageImage = { media_type: "image/svg+xml", data: "PHN2Zz4=" };
    const { live, user } = await setup({}, { history: HISTORY.map((m, i) => (i === 4 ? said("second", [PNG, svg]) : m)) });
    await user.click(editOf(2));
    expect(within(editor()).getByTestId("prompt-editor-images").textContent).toContain("Sent again with 1 image.");
    expect(within(editor()).getByTestId("prompt-editor-images-note").textContent!.trim()).toBe(
      "1 image of this prompt cannot be sent again (not a type the model reads) and is left out.",
    );
    await user.click(within(editor()).getByTestId("prompt-editor-send"));
    await waitFor(() => expect(live.called("send_prompt")).toHaveLength(1));
    expect(live.called("send_prompt")[0]!.images).toEqual([{ name: "image 1", data: PNG.data }]);
  });

  it("keeps the session live and the edit open when the fork fails, and says why", async () => {
    const { live, user } = await setup({
      fork_session: () => {
        throw "prompt 2 is not in the conversation";
      },
    });
    await user.click(editOf(2));
    await user.type(editorText(), "!");
    await user.click(within(editor()).getByTestId("prompt-editor-send"));

    await waitFor(() => expect(notices().at(-1)).toBe("Could not start a session from before prompt 2: prompt 2 is not in the conversation"));
    expect(shownScreen().dataset.sessionId).toBe("s1");
    expect(row("s1").dataset.live).toBe("true");
    expect(live.called("end_session")).toEqual([]);
    expect(live.called("start_session")).toEqual([{ projectPath: ROOT, resume: "s1" }]);
    expect(live.called("send_prompt")).toEqual([]);
    // Nothing typed is lost: the editor is still there with the text, ready to try again.
    expect(editorText().value).toBe("second!");
    expect((within(editor()).getByTestId("prompt-editor-send") as HTMLButtonElement).disabled).toBe(false);
  });

  it("closes on Cancel and on Escape without a call, the prompt as it was", async () => {
    const { live, user } = await setup();
    await user.click(editOf(2));
    await user.type(editorText(), " changed");
    await user.click(within(editor()).getByTestId("prompt-editor-cancel"));
    expect(inShown().queryByTestId("prompt-editor")).toBeNull();
    expect(within(promptOf(2)).getByTestId("user-text").textContent).toBe("second");
    await waitFor(() => expect(document.activeElement).toBe(editOf(2)));

    await user.click(editOf(1));
    await user.type(editorText(), " changed");
    await user.keyboard("{Escape}");
    expect(inShown().queryByTestId("prompt-editor")).toBeNull();
    expect(within(promptOf(1)).getByTestId("user-text").textContent).toBe("first");
    for (const cmd of ["rewind_session", "fork_session", "end_session", "send_prompt", "abort_turn"]) expect(live.called(cmd)).toEqual([]);
  });

  it("is not offered while a turn runs, and Escape in an open editor does not stop the turn", async () => {
    const { live, user } = await setup();
    await user.click(editOf(1));
    await user.type(inShown().getByTestId("prompt-input"), "third{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));

    const disabledWithReason = (turn: number) => {
      expect(editOf(turn).disabled).toBe(true);
      expect(editOf(turn).title).toBe("A turn is running: edit the prompt once it has ended");
      expect(forkOf(turn).disabled).toBe(true);
      expect(forkOf(turn).title).toBe("A turn is running: fork once it has ended");
    };
    await waitFor(() => disabledWithReason(2));
    expect(within(editor()).getByTestId("prompt-editor-running").textContent).toBe("A turn is running: resend once it has ended.");
    expect((within(editor()).getByTestId("prompt-editor-send") as HTMLButtonElement).disabled).toBe(true);

    await user.click(editorText());
    await user.keyboard("{Escape}");
    expect(inShown().queryByTestId("prompt-editor")).toBeNull();
    expect(live.called("abort_turn")).toEqual([]);
    expect(inShown().getByTestId("turn-status").textContent!.trim()).toBe("running");
    disabledWithReason(1);

    live.turns[0]!.finish();
    await waitFor(() => expect(editOf(1).disabled).toBe(false));
    expect(forkOf(1).disabled).toBe(false);
  });
});

describe("forking from a prompt", () => {
  it("forks before the next prompt, or the whole conversation from the last; the session stays live", async () => {
    const { live, user } = await setup();
    await user.click(forkOf(1));
    await waitFor(() => expect(shownScreen().dataset.sessionId).toBe("f1"));
    expect(live.called("fork_session")).toEqual([{ projectPath: ROOT, sessionId: "s1", beforeTurn: 2 }]);
    expect(live.called("start_session").at(-1)).toEqual({ projectPath: ROOT, resume: "f1" });
    expect(inShown().getAllByTestId("user-text").map((u) => u.textContent)).toEqual(["first", "Stop hook feedback:\nrun the linter"]);
    expect(notices()).toEqual(["Forked from “Fix the parser” after prompt 1; that session stays as it was in the sidebar."]);
    // Beside the session, not in its place.
    expect(screen.getAllByTestId("session-view").map((s) => s.dataset.sessionId)).toEqual(["s1", "f1"]);
    await waitFor(() => expect(row("f1")?.dataset.live).toBe("true"));
    expect(row("s1").dataset.live).toBe("true");

    await user.click(row("s1"));
    await waitFor(() => expect(shownScreen().dataset.sessionId).toBe("s1"));
    await user.click(forkOf(2));
    await waitFor(() => expect(shownScreen().dataset.sessionId).toBe("f2"));
    expect(live.called("fork_session")).toEqual([
      { projectPath: ROOT, sessionId: "s1", beforeTurn: 2 },
      { projectPath: ROOT, sessionId: "s1", beforeTurn: null },
    ]);
    expect(inShown().getAllByTestId("user-text").map((u) => u.textContent)).toEqual(["first", "Stop hook feedback:\nrun the linter", "second"]);
    expect(screen.getAllByTestId("session-view").map((s) => s.dataset.sessionId)).toEqual(["s1", "f1", "f2"]);
    expect(live.called("end_session")).toEqual([]);
    expect(live.called("send_prompt")).toEqual([]);
  });

  it("says why a fork failed, in the session, which stays shown", async () => {
    const { live, user } = await setup({
      fork_session: () => {
        throw "disk full";
      },
    });
    await user.click(forkOf(1));
    await waitFor(() => expect(notices().at(-1)).toBe("Could not fork the session from prompt 1: disk full"));
    expect(shownScreen().dataset.sessionId).toBe("s1");
    expect(live.called("start_session")).toEqual([{ projectPath: ROOT, resume: "s1" }]);
    expect(forkOf(1).disabled).toBe(false);
  });
});
