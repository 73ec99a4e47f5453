// Reviewing what the agent changed: a tool card's diff (the call's change set, fetched once) and the
// Changes panel (this turn or the session, per-file revert that asks only when the file changed on
// disk since the agent's change).
import { beforeEach, describe, expect, it, vi } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import { mockIPC, mockWindows } from "@tauri-apps/api/mocks";
import type { ChangeScope } from "../bindings/ChangeScope";
import type { CodeRewindReport } from "../bindings/CodeRewindReport";
import type { Event } from "../bindings/Event";
import Conversation from "../lib/components/Conversation.svelte";
import MessageList from "../lib/components/MessageList.svelte";
import { fromHistory, initialState, reduce } from "../lib/conversation/reducer";
import { changeSet, completed, fileChange, planned, queued, rewindPlan, unseenCall } from "./fixtures";
import { liveSession, sessionInfo } from "./live";
import { answered, results, said, userMessage } from "./messages";

const stateOf = (events: Event[]) => events.reduce((s, e) => reduce(s, e, Date.now()), initialState());
const card = (id: string) => document.querySelector(`[data-tool-use-id="${id}"]`) as HTMLElement;

describe("a tool card's changes", () => {
  let asked: unknown[];
  beforeEach(() => {
    asked = [];
    mockWindows("main");
    mockIPC((cmd, args) => {
      if (cmd !== "get_changes") return null;
      asked.push(args);
      return changeSet((args as { scope: ChangeScope }).scope, [
        fileChange("/home/me/proj/src/main.rs"),
        fileChange("/home/me/proj/logo.png", { status: "created", binary: true, added: 0, removed: 0, hunks: [] }),
      ]);
    });
  });

  it("stays collapsed with the file count, fetches the call's change set once and shows each diff", async () => {
    const user = userEvent.setup();
    const conversation = stateOf([
      queued("e", 1, false, "Edit"),
      queued("r", 2, false, "Read"),
      completed("e", { changed_files: ["/home/me/proj/src/main.rs", "/home/me/proj/logo.png"] }),
      completed("r"),
    ]);
    render(MessageList, { conversation, sessionId: "s1", projectPath: "/home/me/proj" });
    expect(within(card("r")).queryByTestId("card-changes")).toBeNull();
    const changes = within(card("e")).getByTestId("card-changes");
    expect(changes.textContent).toContain("Changes · 2 files");
    expect(within(changes).queryByTestId("card-file")).toBeNull();
    expect(asked).toEqual([]);

    await user.click(within(changes).getByTestId("card-changes-toggle"));
    const files = await within(changes).findAllByTestId("card-file");
    expect(asked).toEqual([{ sessionId: "s1", scope: { kind: "call", tool_use_id: "e" } }]);
    expect(files.map((f) => [f.dataset.path, within(f).getByTestId("file-path").textContent, within(f).getByTestId("file-counts").textContent])).toEqual([
      ["/home/me/proj/src/main.rs", "src/main.rs", "+1 −1"],
      ["/home/me/proj/logo.png", "logo.png", "binary"],
    ]);
    const diff = within(files[0]!).getByTestId("diff-view");
    expect([...diff.querySelectorAll("[data-tag]")].map((l) => [l.getAttribute("data-tag"), l.textContent])).toEqual([
      ["delete", "1-before"],
      ["insert", "1+after"],
      ["context", "22 same"],
    ]);
    expect(within(files[1]!).getByTestId("file-binary").textContent).toContain("Binary file");

    // Collapsing and expanding again shows what was fetched; nothing is asked twice.
    await user.click(within(changes).getByTestId("card-changes-toggle"));
    expect(within(changes).queryByTestId("card-file")).toBeNull();
    await user.click(within(changes).getByTestId("card-changes-toggle"));
    expect(within(changes).getAllByTestId("card-file")).toHaveLength(2);
    expect(asked).toHaveLength(1);
  });

  it("is offered on a resumed session's cards from the engine's past calls, and not while a call runs", () => {
    const resumed = fromHistory(
      [said("go"), answered("", [["w", "Write", {}]]), results(["w", "ok"])],
      "default",
      [
        {
          tool_use_id: "w",
          tool_name: "Write",
          kind: { kind: "file_write" },
          display_name: "Write",
          summary: "Write a.txt",
          batch_index: 1,
          concurrent: false,
          denied: false,
          error: null,
          destructive: false,
          persisted_path: null,
          persisted_bytes: null,
          changed_files: ["/home/me/proj/a.txt"],
        },
      ],
    );
    const running = reduce(resumed, queued("x", 9, false, "Bash"), 0);
    render(MessageList, { conversation: running, sessionId: "s1", projectPath: "/home/me/proj" });
    expect(within(card("w")).getByTestId("card-changes").textContent).toContain("Changes · 1 file");
    expect(within(card("x")).queryByTestId("card-changes")).toBeNull();
  });
});

describe("the Changes panel", () => {
  const A = "/home/me/projects/nerve-demo/src/a.rs";
  const B = "/home/me/projects/nerve-demo/b.txt";
  const turnFiles = [fileChange(A, { added: 3, removed: 1 })];
  const sessionFiles = [fileChange(A, { added: 5, removed: 2 }), fileChange(B, { status: "created", added: 4, removed: 0 })];

  function setup(onDisk: string[] = []) {
    const reverted: CodeRewindReport = { to_turn: 0, restored: [], refused: [], unseen: [] };
    const live = liveSession(
      sessionInfo({
        history: [said("one"), answered("done"), said("two")],
        prompts: [
          { turn: 1, text: "one", time_ms: 0, message_index: 0 },
          { turn: 2, text: "two", time_ms: 0, message_index: 2 },
        ],
      }),
      {
        get_changes: (args) => {
          const scope = args.scope as ChangeScope;
          if (scope.kind === "session") return changeSet(scope, sessionFiles, [unseenCall("tu-9", "the project is not a git repository")]);
          if (scope.kind === "git_uncommitted") return changeSet(scope, [fileChange(B, { status: "created", added: 4, removed: 0 })]);
          if (scope.kind === "git_staged") return changeSet(scope, [fileChange(A, { added: 0, removed: 0, hunks: [] })]);
          return changeSet(scope, turnFiles);
        },
        undo_rewind: () => ({
          to_turn: 2,
          restored: [planned(A)],
          refused: [{ path: B, reason: { kind: "changed_since_plan" } }],
          unseen: [],
        }),
        review_prompt: () => "Review of your changes.\n\n1. src/a.rs:1\n   Why this?\n",
        suggest_commit_message: () => "Rename the parser's entry point",
        git_commit: () => "0123abcd0123abcd0123abcd0123abcd0123abcd",
        git_create_branch: () => {
          if (live.called("git_create_branch").length > 1) throw "a branch named `try-it` exists already";
          return null;
        },
        plan_file_revert: (args) => rewindPlan(0, [planned(String(args.path), { changed_on_disk: onDisk.includes(String(args.path)) })]),
        revert_file: (args) => ({ ...reverted, restored: [planned(String(args.path))] }),
      },
    );
    const user = userEvent.setup();
    render(Conversation, { session: live.session, onclose: vi.fn() });
    return { live, user };
  }

  const rows = () =>
    screen.getAllByTestId("changed-file").map((f) => [
      f.dataset.path,
      within(f).getByTestId("file-status").textContent,
      within(f).getByTestId("file-counts").textContent,
    ]);

  it("shows the session's totals in the header and lists this turn's or the session's files", async () => {
    const { live, user } = setup();
    const open = screen.getByTestId("open-changes");
    await waitFor(() => expect(open.textContent?.trim()).toBe("Changes +9 −2"));
    expect(screen.queryByTestId("changes-panel")).toBeNull();

    await user.click(open);
    const panel = screen.getByTestId("changes-panel");
    await waitFor(() => expect(rows()).toEqual([[A, "modified", "+3 −1"]]));
    expect(within(panel).getByTestId("changes-scope-turn").getAttribute("aria-pressed")).toBe("true");
    expect(live.called("get_changes").at(-1)).toEqual({ sessionId: "s1", scope: { kind: "turn", turn: 2 } });

    await user.click(within(panel).getByTestId("changes-scope-session"));
    await waitFor(() => expect(rows()).toEqual([[A, "modified", "+5 −2"], [B, "created", "+4 −0"]]));
    expect(within(panel).getAllByTestId("unseen-note").map((n) => n.textContent)).toEqual(["cannot restore: the project is not a git repository"]);

    // Expanding a file shows its net diff; the conversation stays where it was.
    const first = screen.getAllByTestId("changed-file")[0]!;
    await user.click(within(first).getByTestId("file-toggle"));
    expect(within(first).getByTestId("diff-view")).toBeTruthy();
    expect(screen.getByTestId("message-list")).toBeTruthy();
    expect(screen.getAllByTestId("user-text").map((u) => u.textContent)).toEqual(["one", "two"]);
  });

  it("reads git's scopes from the engine: uncommitted and staged, no revert there, and a mode-only change says so", async () => {
    const { live, user } = setup();
    await user.click(screen.getByTestId("open-changes"));
    const panel = screen.getByTestId("changes-panel");
    expect(within(panel).queryByTestId("changes-scope-git_base")).toBeNull();
    await user.click(within(panel).getByTestId("changes-scope-git_uncommitted"));
    await waitFor(() => expect(live.called("get_changes").at(-1)).toEqual({ sessionId: "s1", scope: { kind: "git_uncommitted" } }));
    await waitFor(() => expect(within(panel).getByTestId("changes-summary").textContent).toContain("Uncommitted: 1 file"));
    expect(within(panel).queryByTestId("revert-file")).toBeNull();
    await user.click(within(panel).getByTestId("changes-scope-git_staged"));
    await waitFor(() => expect(live.called("get_changes").at(-1)).toEqual({ sessionId: "s1", scope: { kind: "git_staged" } }));
    await waitFor(() => expect(within(panel).getByTestId("changes-summary").textContent).toContain("Staged: 1 file"));
    const file = screen.getAllByTestId("changed-file")[0]!;
    await user.click(within(file).getByTestId("file-toggle"));
    expect(within(file).getByTestId("file-no-text-change").textContent).toBe("No change to its text: only its mode or type changed.");
  });

  it("stages and unstages a file, commits with a suggested message the user edits, and creates a branch", async () => {
    const { live, user } = setup();
    await user.click(screen.getByTestId("open-changes"));
    const panel = screen.getByTestId("changes-panel");
    await user.click(within(panel).getByTestId("changes-scope-git_uncommitted"));
    await user.click(await within(panel).findByTestId("stage-file"));
    await waitFor(() => expect(live.called("git_stage")).toEqual([{ sessionId: "s1", paths: [B] }]));
    expect(within(panel).getByTestId("changes-note").textContent).toBe("Staged b.txt.");

    await user.click(within(panel).getByTestId("changes-scope-git_staged"));
    await user.click(await within(panel).findByTestId("unstage-file"));
    await waitFor(() => expect(live.called("git_unstage")).toEqual([{ sessionId: "s1", paths: [A] }]));

    const commit = within(panel).getByTestId("commit-button") as HTMLButtonElement;
    expect(commit.disabled).toBe(true);
    await user.click(within(panel).getByTestId("commit-suggest"));
    const message = within(panel).getByTestId("commit-message") as HTMLTextAreaElement;
    await waitFor(() => expect(message.value).toBe("Rename the parser's entry point"));
    await user.type(message, "\n\nIt reads better.");
    await user.click(commit);
    await waitFor(() =>
      expect(live.called("git_commit")).toEqual([{ sessionId: "s1", message: "Rename the parser's entry point\n\nIt reads better." }]),
    );
    await waitFor(() => expect(within(panel).getByTestId("changes-note").textContent).toBe("Committed 0123abcd."));
    expect(message.value).toBe("");

    await user.type(within(panel).getByTestId("branch-name"), "try-it");
    await user.click(within(panel).getByTestId("branch-button"));
    await waitFor(() => expect(live.called("git_create_branch")).toEqual([{ sessionId: "s1", name: "try-it" }]));
    await user.type(within(panel).getByTestId("branch-name"), "try-it");
    await user.click(within(panel).getByTestId("branch-button"));
    expect((await within(panel).findByTestId("git-error")).textContent).toBe("a branch named `try-it` exists already");
  });

  it("undoes one hunk, and sends line comments back to the agent as one review", async () => {
    const { live, user } = setup();
    await user.click(screen.getByTestId("open-changes"));
    const panel = screen.getByTestId("changes-panel");
    const file = (await within(panel).findAllByTestId("changed-file"))[0]!;
    await user.click(within(file).getByTestId("file-toggle"));
    await user.click(within(file).getByTestId("undo-hunk"));
    await waitFor(() => expect(live.called("undo_hunk")).toEqual([{ sessionId: "s1", path: A, hunk: turnFiles[0]!.hunks[0] }]));
    expect(within(panel).getByTestId("changes-note").textContent).toBe("Undid a change in a.rs.");

    await user.click(within(file).getAllByTestId("comment-line")[0]!);
    await user.type(within(panel).getByTestId("comment-text"), "Why this?");
    await user.click(within(panel).getByTestId("comment-add"));
    expect(within(panel).getAllByTestId("review-comment").map((c) => c.textContent)).toEqual(["src/a.rs:1 Why this?"]);
    await user.click(within(panel).getByTestId("review-send"));
    await waitFor(() =>
      expect(live.called("review_prompt")).toEqual([{ sessionId: "s1", comments: [{ path: A, line: 1, end_line: null, text: "Why this?" }] }]),
    );
    // The engine's prompt goes out as the next prompt of the session.
    // (as typed prompts are: without the trailing line break).
    await waitFor(() => expect(live.turns.at(-1)?.prompt).toBe("Review of your changes.\n\n1. src/a.rs:1\n   Why this?"));
    expect(within(panel).queryByTestId("review")).toBeNull();
  });

  it("undoes the last rewind and says what it brought back and what it left", async () => {
    const { live, user } = setup();
    await user.click(screen.getByTestId("open-changes"));
    const panel = screen.getByTestId("changes-panel");
    await user.click(within(panel).getByTestId("undo-rewind"));
    await waitFor(() => expect(live.called("undo_rewind")).toEqual([{ sessionId: "s1" }]));
    expect(within(panel).getByTestId("changes-note").textContent).toBe(
      "Undid the last rewind: 1 file brought back; 1 file changed since it, left as it is.",
    );
    await user.click(within(panel).getByTestId("changes-scope-git_staged"));
    expect(within(panel).queryByTestId("undo-rewind")).toBeNull();
  });

  it("reverts a file at once when nobody else changed it, and asks first when it changed on disk", async () => {
    const { live, user } = setup([B]);
    await user.click(screen.getByTestId("open-changes"));
    await user.click(await screen.findByTestId("changes-scope-session"));
    await waitFor(() => expect(screen.getAllByTestId("changed-file")).toHaveLength(2));
    const row = (path: string) => screen.getAllByTestId("changed-file").find((f) => f.dataset.path === path)!;

    const before = live.called("get_changes").length;
    await user.click(within(row(A)).getByTestId("revert-file"));
    await waitFor(() => expect(live.called("revert_file")).toHaveLength(1));
    expect(live.called("plan_file_revert")).toEqual([{ sessionId: "s1", path: A, fromTurn: null }]);
    expect(live.called("revert_file")).toEqual([{ sessionId: "s1", path: A, fromTurn: null, confirmed: false }]);
    expect(screen.queryByTestId("revert-ask")).toBeNull();
    await waitFor(() => expect(screen.getByTestId("changes-note").textContent).toBe("Reverted src/a.rs."));
    // The panel and the header's totals ask again.
    await waitFor(() => expect(live.called("get_changes").length).toBeGreaterThanOrEqual(before + 2));

    await user.click(within(row(B)).getByTestId("revert-file"));
    const ask = await within(row(B)).findByTestId("revert-ask");
    expect(ask.textContent).toContain("changed on disk since the agent's change — overwrite?");
    expect(live.called("revert_file")).toHaveLength(1); // nothing overwritten without a yes
    await user.click(within(ask).getByTestId("revert-confirm"));
    await waitFor(() => expect(live.called("revert_file")).toHaveLength(2));
    expect(live.called("revert_file")[1]).toEqual({ sessionId: "s1", path: B, fromTurn: null, confirmed: true });
  });

  it("reverts to before the turn in the turn scope, and a declined overwrite changes nothing", async () => {
    const { live, user } = setup([A]);
    await user.click(screen.getByTestId("open-changes"));
    await waitFor(() => expect(screen.getAllByTestId("changed-file")).toHaveLength(1));
    await user.click(screen.getByTestId("revert-file"));
    await user.click(await screen.findByTestId("revert-cancel"));
    expect(live.called("plan_file_revert")).toEqual([{ sessionId: "s1", path: A, fromTurn: 2 }]);
    expect(live.called("revert_file")).toEqual([]);
    expect(screen.getByTestId("revert-file")).toBeTruthy();
  });

  it("asks again when a call changes files while it is open, following the new turn", async () => {
    const { live, user } = setup();
    await user.click(screen.getByTestId("open-changes"));
    await waitFor(() => expect(screen.getAllByTestId("changed-file")).toHaveLength(1));
    await user.type(screen.getByTestId("prompt-input"), "three{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    const turn = live.turns[0]!;
    turn.send({ type: "turn_started", turn: 3 });
    turn.send(userMessage("three"));
    turn.send(queued("w", 1, false, "Write"));
    const count = live.called("get_changes").length;
    turn.send(completed("w", { changed_files: [B] }));
    await waitFor(() =>
      expect(live.called("get_changes").slice(count)).toContainEqual({ sessionId: "s1", scope: { kind: "turn", turn: 3 } }),
    );
    // Reverting waits for the turn to end.
    expect((screen.getByTestId("revert-file") as HTMLButtonElement).disabled).toBe(true);
    const atEnd = live.called("get_changes").length;
    turn.send({ type: "turn_ended", reason: "end_turn" });
    turn.finish();
    await waitFor(() => expect(live.called("get_changes").length).toBeGreaterThan(atEnd));
    await waitFor(() => expect((screen.getByTestId("revert-file") as HTMLButtonElement).disabled).toBe(false));
  });
});
