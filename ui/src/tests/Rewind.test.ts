// Rewinding to before a prompt: the dialog shows the engine's plan, sends the request the user
// chose (with the files they agreed to overwrite), rebuilds the conversation from the outcome and
// gives the prompt back for editing; never while a turn runs. Undoing it from the Changes panel
// brings the conversation back too.
import { describe, expect, it, vi } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import type { HistoryMessage } from "../bindings/HistoryMessage";
import type { PastCall } from "../bindings/PastCall";
import type { PromptInfo } from "../bindings/PromptInfo";
import type { RewindOutcome } from "../bindings/RewindOutcome";
import type { RewindRequest } from "../bindings/RewindRequest";
import type { RewindUndoOutcome } from "../bindings/RewindUndoOutcome";
import Conversation from "../lib/components/Conversation.svelte";
import { planned, rewindPlan, unseenCall } from "./fixtures";
import { liveSession, sessionInfo, type Handler } from "./live";
import { answered, results, said, userMessage } from "./messages";

const ROOT = "/home/me/projects/nerve-demo";
const A = `${ROOT}/src/a.rs`;
const B = `${ROOT}/src/b.rs`;
const NEW = `${ROOT}/new.py`;

const prompt = (turn: number, text: string, message_index: number | null): PromptInfo => ({
  turn,
  text,
  time_ms: 1000 * turn,
  message_index,
  outcome: null,
  ended_ms: null,
});
const write: PastCall = {
  tool_use_id: "w1",
  tool_name: "Write",
  kind: { kind: "file_write" },
  display_name: "Write",
  summary: "Write new.py",
  batch_index: 1,
  concurrent: false,
  denied: false,
  error: null,
  destructive: false,
  persisted_path: null,
  persisted_bytes: null,
  changed_files: [NEW],
};

// Two prompts; Stop hook feedback (a user message that is no prompt) sits between them.
const history: HistoryMessage[] = [
  said("first"),
  answered("ok"),
  said("Stop hook feedback:\nrun the linter"),
  answered("linted"),
  said("second"),
  answered("", [["w1", "Write", { file_path: NEW }]]),
  results(["w1", "written"]),
  answered("done"),
];

const outcome = (request: RewindRequest): RewindOutcome => ({
  report: {
    to_turn: request.to_turn,
    code: request.code
      ? {
          to_turn: request.to_turn,
          restored: [planned(A), planned(NEW, { action: "delete" })],
          refused: [{ path: B, reason: { kind: "changed_on_disk" } }],
          unseen: [],
        }
      : null,
    conversation: request.conversation ? { prompt: prompt(2, "second", 4), prompts_removed: 1 } : null,
  },
  history: request.conversation ? history.slice(0, 4) : history,
  past_calls: request.conversation ? [] : [write],
  prompts: request.conversation ? [prompt(1, "first", 0)] : [prompt(1, "first", 0), prompt(2, "second", 4)],
});

function setup(handlers: Record<string, Handler> = {}) {
  const live = liveSession(sessionInfo({ history, past_calls: [write], prompts: [prompt(1, "first", 0), prompt(2, "second", 4)] }), {
    get_changes: (args) => ({ scope: args.scope, files: [], unseen: [] }),
    plan_rewind: (args) =>
      rewindPlan(
        Number(args.toTurn),
        [planned(A), planned(B, { changed_on_disk: true }), planned(NEW, { action: "delete" })],
        [unseenCall("tu-b", "a Bash command ran outside the git work tree")],
      ),
    rewind_session: (args) => outcome(args.request as RewindRequest),
    ...handlers,
  });
  const user = userEvent.setup();
  render(Conversation, { session: live.session, onclose: vi.fn() });
  return { live, user };
}

const userMessages = () => screen.getAllByTestId("user-message");
const rewindOn = (text: string) =>
  within(userMessages().find((m) => within(m).getByTestId("user-text").textContent === text)!).getByTestId("rewind-prompt");

describe("rewinding to a prompt", () => {
  it("offers a rewind on each prompt the engine numbered, and none on user text that is no prompt", () => {
    setup();
    expect(userMessages().map((m) => [within(m).getByTestId("user-text").textContent, m.dataset.turn ?? null, within(m).queryByTestId("rewind-prompt") !== null])).toEqual([
      ["first", "1", true],
      ["Stop hook feedback:\nrun the linter", null, false],
      ["second", "2", true],
    ]);
  });

  it("shows the plan, sends the chosen files to overwrite, rebuilds the conversation and gives the prompt back", async () => {
    const { live, user } = setup();
    await user.click(rewindOn("second"));
    const dialog = screen.getByTestId("rewind-dialog");
    expect((within(dialog).getByTestId("rewind-choice-both") as HTMLInputElement).checked).toBe(true);
    await waitFor(() => expect(within(dialog).getAllByTestId("rewind-file")).toHaveLength(3));
    expect(live.called("plan_rewind")).toEqual([{ sessionId: "s1", toTurn: 2 }]);

    const files = within(dialog).getAllByTestId("rewind-file");
    expect(files.map((f) => [f.dataset.path, f.dataset.action, within(f).queryByTestId("rewind-confirm-file") !== null])).toEqual([
      [A, "write", false],
      [B, "write", true],
      [NEW, "delete", false],
    ]);
    expect(files[0]!.textContent).toContain("src/a.rs");
    expect(files[0]!.textContent).toContain("restore");
    expect(files[2]!.textContent).toContain("delete (the agent created it)");
    const onDisk = within(files[1]!).getByTestId("rewind-confirm-file") as HTMLInputElement;
    expect(onDisk.checked).toBe(false);
    expect(within(files[1]!).getByTestId("rewind-left-alone").textContent).toBe("left alone unless ticked");
    expect(within(dialog).getAllByTestId("rewind-unseen").map((u) => u.textContent)).toEqual(["a Bash command ran outside the git work tree"]);
    expect(dialog.textContent).toContain("Cannot be restored");

    await user.click(onDisk);
    expect(within(files[1]!).queryByTestId("rewind-left-alone")).toBeNull();
    await user.click(within(dialog).getByTestId("rewind-confirm"));

    await waitFor(() => expect(screen.queryByTestId("rewind-dialog")).toBeNull());
    expect(live.called("rewind_session")).toEqual([{ sessionId: "s1", request: { to_turn: 2, code: true, conversation: true, confirmed: [B] } }]);
    // The conversation is the engine's: the second prompt and its call are gone.
    expect(screen.getAllByTestId("user-text").map((u) => u.textContent)).toEqual(["first", "Stop hook feedback:\nrun the linter"]);
    expect(screen.queryByTestId("tool-card")).toBeNull();
    expect((screen.getByTestId("prompt-input") as HTMLTextAreaElement).value).toBe("second");
    const notices = screen.getAllByTestId("notice").map((n) => n.textContent);
    expect(notices.at(-1)).toBe(
      "Rewound to before prompt 2: conversation cut back (1 prompt removed); restored 2 files; " +
        "refused 1 file: src/b.rs (changed on disk since the agent's change, and not confirmed).",
    );
  });

  it("rewinds the code only, leaving the conversation and the prompt box alone", async () => {
    const { live, user } = setup();
    await user.click(rewindOn("first"));
    const dialog = screen.getByTestId("rewind-dialog");
    await user.click(within(dialog).getByTestId("rewind-choice-code"));
    await waitFor(() => expect(within(dialog).getAllByTestId("rewind-file")).toHaveLength(3));
    await user.click(within(dialog).getByTestId("rewind-confirm"));
    await waitFor(() => expect(screen.queryByTestId("rewind-dialog")).toBeNull());
    expect(live.called("rewind_session")).toEqual([{ sessionId: "s1", request: { to_turn: 1, code: true, conversation: false, confirmed: [] } }]);
    expect(screen.getAllByTestId("user-text").map((u) => u.textContent)).toEqual(["first", "Stop hook feedback:\nrun the linter", "second"]);
    expect(screen.getAllByTestId("tool-card")).toHaveLength(1);
    expect((screen.getByTestId("prompt-input") as HTMLTextAreaElement).value).toBe("");
  });

  it("rewinds the conversation only, without a plan and without confirmed files", async () => {
    const { live, user } = setup();
    await user.click(rewindOn("second"));
    const dialog = screen.getByTestId("rewind-dialog");
    await waitFor(() => expect(within(dialog).getAllByTestId("rewind-file")).toHaveLength(3));
    await user.click(within(dialog).getByTestId("rewind-confirm-file"));
    await user.click(within(dialog).getByTestId("rewind-choice-conversation"));
    expect(within(dialog).queryByTestId("rewind-plan")).toBeNull();
    await user.click(within(dialog).getByTestId("rewind-confirm"));
    await waitFor(() => expect(live.called("rewind_session")).toHaveLength(1));
    expect(live.called("rewind_session")[0]).toEqual({ sessionId: "s1", request: { to_turn: 2, code: false, conversation: true, confirmed: [] } });
    await waitFor(() => expect((screen.getByTestId("prompt-input") as HTMLTextAreaElement).value).toBe("second"));
  });

  it("shows why the engine refused, and keeps the dialog open", async () => {
    const { user } = setup({
      rewind_session: () => {
        throw "A turn is running in this session: rewind once it has ended.";
      },
    });
    await user.click(rewindOn("second"));
    await user.click(screen.getByTestId("rewind-choice-conversation"));
    await user.click(screen.getByTestId("rewind-confirm"));
    const dialog = screen.getByTestId("rewind-dialog");
    await waitFor(() => expect(within(dialog).getByRole("alert").textContent).toBe("The rewind failed: A turn is running in this session: rewind once it has ended."));
    expect(screen.getAllByTestId("user-text")).toHaveLength(3);
  });

  it("closes on Escape without rewinding", async () => {
    const { live, user } = setup();
    await user.click(rewindOn("first"));
    await waitFor(() => expect(document.activeElement).toBe(screen.getByTestId("rewind-dialog")));
    await user.keyboard("{Escape}");
    expect(screen.queryByTestId("rewind-dialog")).toBeNull();
    expect(live.called("rewind_session")).toEqual([]);
  });

  it("is not possible while a turn runs; a live prompt gets its number from turn_started", async () => {
    const { live, user } = setup();
    await user.click(rewindOn("first"));
    await user.type(screen.getByTestId("prompt-input"), "third{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    const turn = live.turns[0]!;
    turn.send({ type: "turn_started", turn: 3 });
    turn.send(userMessage("third"));

    const dialog = screen.getByTestId("rewind-dialog");
    await waitFor(() => expect(within(dialog).getByTestId("rewind-running").textContent).toBe("A turn is running: rewind once it has ended."));
    expect((within(dialog).getByTestId("rewind-confirm") as HTMLButtonElement).disabled).toBe(true);
    await waitFor(() => expect(userMessages()).toHaveLength(4));
    expect(userMessages().at(-1)!.dataset.turn).toBe("3");
    for (const button of screen.getAllByTestId("rewind-prompt")) expect((button as HTMLButtonElement).disabled).toBe(true);

    turn.send({ type: "turn_ended", reason: "end_turn" });
    turn.finish();
    await waitFor(() => expect((within(dialog).getByTestId("rewind-confirm") as HTMLButtonElement).disabled).toBe(false));
    expect(within(dialog).queryByTestId("rewind-running")).toBeNull();
    expect(screen.getAllByTestId("rewind-prompt").every((b) => !(b as HTMLButtonElement).disabled)).toBe(true);
  });
});

describe("undoing a rewind", () => {
  it("says in the dialog how the rewind can be undone, for what goes back", async () => {
    const { user } = setup();
    await user.click(rewindOn("second"));
    const dialog = screen.getByTestId("rewind-dialog");
    const note = () => within(dialog).getByTestId("rewind-undoable").textContent;
    await waitFor(() => expect(within(dialog).getAllByTestId("rewind-file")).toHaveLength(3));
    expect(note()).toBe(
      "It can be undone: Changes → Undo last rewind brings back what these files hold now, and the conversation too as long as nothing is sent after the rewind.",
    );
    await user.click(within(dialog).getByTestId("rewind-choice-code"));
    expect(note()).toBe("It can be undone: what these files hold now is kept, and Changes → Undo last rewind brings it back.");
    await user.click(within(dialog).getByTestId("rewind-choice-conversation"));
    expect(note()).toBe("It can be undone: Changes → Undo last rewind brings the conversation back as long as nothing is sent after the rewind.");
  });

  it("brings the cut prompts back into the conversation and says what came back", async () => {
    const undone: RewindUndoOutcome = {
      report: {
        code: { to_turn: 2, restored: [planned(A), planned(NEW)], refused: [], unseen: [] },
        prompts_back: 1,
      },
      history,
      past_calls: [write],
      prompts: [prompt(1, "first", 0), prompt(2, "second", 4)],
    };
    const { live, user } = setup({ undo_rewind: () => undone });
    await user.click(rewindOn("second"));
    await waitFor(() => expect(within(screen.getByTestId("rewind-dialog")).getAllByTestId("rewind-file")).toHaveLength(3));
    await user.click(screen.getByTestId("rewind-confirm"));
    await waitFor(() => expect(screen.getAllByTestId("user-text").map((u) => u.textContent)).toEqual(["first", "Stop hook feedback:\nrun the linter"]));

    await user.click(screen.getByTestId("open-changes"));
    await user.click(within(screen.getByTestId("changes-panel")).getByTestId("undo-rewind"));
    await waitFor(() => expect(live.called("undo_rewind")).toEqual([{ sessionId: "s1" }]));
    // The conversation is the engine's again: the second prompt, its call and their rewind button.
    await waitFor(() => expect(screen.getAllByTestId("user-text").map((u) => u.textContent)).toEqual(["first", "Stop hook feedback:\nrun the linter", "second"]));
    expect(screen.getAllByTestId("tool-card")).toHaveLength(1);
    expect(rewindOn("second")).toBeTruthy();
    const said = "Undid the last rewind: 1 prompt back in the conversation; 2 files brought back.";
    expect(screen.getByTestId("changes-note").textContent).toBe(said);
    expect(screen.getAllByTestId("notice").map((n) => n.textContent).at(-1)).toBe(said);
  });
});
