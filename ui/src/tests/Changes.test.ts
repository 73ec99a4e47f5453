// Reviewing what the agent changed: a tool card's diff (the call's change set, fetched once, the
// words that changed inside a modified line marked) and the Changes panel (this turn or the
// session, per-file revert that asks only when the file changed on disk since the agent's change;
// git's scopes staging, unstaging and reverting a file or one hunk, renames with both paths).
import { beforeEach, describe, expect, it, vi } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import { mockIPC, mockWindows } from "@tauri-apps/api/mocks";
import type { ChangeScope } from "../bindings/ChangeScope";
import type { CodeRewindReport } from "../bindings/CodeRewindReport";
import type { DiffHunk } from "../bindings/DiffHunk";
import type { Event } from "../bindings/Event";
import type { FileChange } from "../bindings/FileChange";
import type { RewindUndoOutcome } from "../bindings/RewindUndoOutcome";
import type { WorktreeInfo } from "../bindings/WorktreeInfo";
import Conversation from "../lib/components/Conversation.svelte";
import DiffView from "../lib/components/DiffView.svelte";
import MessageList from "../lib/components/MessageList.svelte";
import { fromHistory, initialState, reduce } from "../lib/conversation/reducer";
import { changeSet, completed, fileChange, planned, queued, rewindPlan, unseenCall } from "./fixtures";
import { liveSession, sessionInfo, type Handler } from "./live";
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

  const history = [said("one"), answered("done"), said("two")];
  const prompts = [
    { turn: 1, text: "one", time_ms: 0, message_index: 0, outcome: null, ended_ms: null },
    { turn: 2, text: "two", time_ms: 0, message_index: 2, outcome: null, ended_ms: null },
  ];
  /** The files of each git scope unless a test gives its own. */
  const GIT_FILES = {
    git_uncommitted: [fileChange(B, { status: "created", added: 4, removed: 0 })],
    git_staged: [fileChange(A, { added: 0, removed: 0, hunks: [] })],
    git_base: [fileChange(A)],
  };
  type GitKind = keyof typeof GIT_FILES;

  interface Options {
    /** Files changed on disk since the agent's change (reverting them asks first). */
    onDisk?: string[];
    /** A git scope's files. */
    git?: Partial<Record<GitKind, FileChange[]>>;
    /** The session's own worktree ("against its base" is offered). */
    worktree?: WorktreeInfo;
    /** Other answers (a refusal). */
    handlers?: Record<string, Handler>;
  }

  function setup({ onDisk = [], git = {}, worktree, handlers = {} }: Options = {}) {
    const reverted: CodeRewindReport = { to_turn: 0, restored: [], refused: [], unseen: [] };
    const live = liveSession(
      sessionInfo({ history, prompts, worktree: worktree ?? null }),
      {
        get_changes: (args) => {
          const scope = args.scope as ChangeScope;
          if (scope.kind === "session") return changeSet(scope, sessionFiles, [unseenCall("tu-9", "the project is not a git repository")]);
          if (scope.kind in GIT_FILES) return changeSet(scope, git[scope.kind as GitKind] ?? GIT_FILES[scope.kind as GitKind]);
          return changeSet(scope, turnFiles);
        },
        // A rewind of the code only: the conversation stays as it is.
        undo_rewind: (): RewindUndoOutcome => ({
          report: {
            code: { to_turn: 2, restored: [planned(A)], refused: [{ path: B, reason: { kind: "changed_since_plan" } }], unseen: [] },
            prompts_back: null,
          },
          history,
          past_calls: [],
          prompts,
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
        ...handlers,
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

  it("reads git's scopes from the engine: uncommitted and staged, and a mode-only change says so", async () => {
    const { live, user } = setup();
    await user.click(screen.getByTestId("open-changes"));
    const panel = screen.getByTestId("changes-panel");
    expect(within(panel).queryByTestId("changes-scope-git_base")).toBeNull();
    await user.click(within(panel).getByTestId("changes-scope-git_uncommitted"));
    await waitFor(() => expect(live.called("get_changes").at(-1)).toEqual({ sessionId: "s1", scope: { kind: "git_uncommitted" } }));
    await waitFor(() => expect(within(panel).getByTestId("changes-summary").textContent).toContain("Uncommitted: 1 file"));
    await user.click(within(panel).getByTestId("changes-scope-git_staged"));
    await waitFor(() => expect(live.called("get_changes").at(-1)).toEqual({ sessionId: "s1", scope: { kind: "git_staged" } }));
    await waitFor(() => expect(within(panel).getByTestId("changes-summary").textContent).toContain("Staged: 1 file"));
    // What is staged is only unstaged here: reverting is for the work tree.
    expect(within(panel).queryByTestId("revert-file")).toBeNull();
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

  const LABELS: Record<GitKind, string> = { git_uncommitted: "Uncommitted:", git_staged: "Staged:", git_base: "Against its base:" };
  /** Shows one of git's scopes in the panel (opening it first), once its files are listed. */
  async function showScope(user: ReturnType<typeof userEvent.setup>, kind: GitKind) {
    if (!screen.queryByTestId("changes-panel")) await user.click(screen.getByTestId("open-changes"));
    const panel = screen.getByTestId("changes-panel");
    await user.click(within(panel).getByTestId(`changes-scope-${kind}`));
    await waitFor(() => expect(within(panel).getByTestId("changes-summary").textContent).toContain(LABELS[kind]));
    return panel;
  }
  /** A file's row with its diff shown. */
  async function expand(user: ReturnType<typeof userEvent.setup>, path: string) {
    const row = await waitFor(() => {
      const found = screen.getAllByTestId("changed-file").find((f) => f.dataset.path === path);
      expect(found).toBeTruthy();
      return found!;
    });
    if (within(row).getByTestId("file-toggle").getAttribute("aria-expanded") !== "true") await user.click(within(row).getByTestId("file-toggle"));
    return row;
  }
  const hunkButtons = (row: HTMLElement) => [...row.querySelectorAll("button[data-testid$='-hunk']")].map((b) => b.getAttribute("data-testid"));

  it("stages or reverts one hunk of what is uncommitted, and unstages one hunk of what is staged", async () => {
    const uncommitted = fileChange(A);
    const staged = fileChange(A, { added: 2, removed: 0 });
    const { live, user } = setup({ git: { git_uncommitted: [uncommitted], git_staged: [staged] } });
    const panel = await showScope(user, "git_uncommitted");
    let row = await expand(user, A);
    // Git's hunks are staged or reverted; the agent's Undo is not offered for them.
    expect(hunkButtons(row)).toEqual(["stage-hunk", "revert-hunk"]);

    let asked = live.called("get_changes").length;
    await user.click(within(row).getByTestId("stage-hunk"));
    await waitFor(() => expect(live.called("git_stage_hunk")).toEqual([{ sessionId: "s1", path: A, hunk: uncommitted.hunks[0] }]));
    await waitFor(() => expect(within(panel).getByTestId("changes-note").textContent).toBe("Staged a change in a.rs."));
    // The scope is read again.
    await waitFor(() => expect(live.called("get_changes").slice(asked)).toContainEqual({ sessionId: "s1", scope: { kind: "git_uncommitted" } }));

    asked = live.called("get_changes").length;
    row = await expand(user, A);
    await user.click(within(row).getByTestId("revert-hunk"));
    await waitFor(() => expect(live.called("undo_hunk")).toEqual([{ sessionId: "s1", path: A, hunk: uncommitted.hunks[0] }]));
    await waitFor(() => expect(within(panel).getByTestId("changes-note").textContent).toBe("Reverted a change in a.rs."));
    await waitFor(() => expect(live.called("get_changes").slice(asked)).toContainEqual({ sessionId: "s1", scope: { kind: "git_uncommitted" } }));
    expect(live.called("git_revert_file")).toEqual([]);

    await showScope(user, "git_staged");
    row = await expand(user, A);
    expect(hunkButtons(row)).toEqual(["unstage-hunk"]);
    await user.click(within(row).getByTestId("unstage-hunk"));
    await waitFor(() => expect(live.called("git_unstage_hunk")).toEqual([{ sessionId: "s1", path: A, hunk: staged.hunks[0] }]));
    await waitFor(() => expect(within(panel).getByTestId("changes-note").textContent).toBe("Unstaged a change in a.rs."));
  });

  it("says why git refused a hunk", async () => {
    const refusal = "the hunk no longer matches src/a.rs: look at the changes again";
    const { user } = setup({
      git: { git_uncommitted: [fileChange(A)] },
      handlers: {
        git_stage_hunk: () => {
          throw refusal;
        },
      },
    });
    const panel = await showScope(user, "git_uncommitted");
    const row = await expand(user, A);
    await user.click(within(row).getByTestId("stage-hunk"));
    await waitFor(() => expect(within(panel).getByTestId("changes-failure").textContent).toBe(`Could not stage the change in a.rs: ${refusal}`));
  });

  it("reverts a file to the last commit only after a confirmation saying what is lost", async () => {
    const { live, user } = setup({ git: { git_uncommitted: [fileChange(A), fileChange(B, { status: "created", added: 4, removed: 0 })] } });
    const panel = await showScope(user, "git_uncommitted");
    const row = (path: string) => screen.getAllByTestId("changed-file").find((f) => f.dataset.path === path)!;
    await waitFor(() => expect(screen.getAllByTestId("changed-file")).toHaveLength(2));

    await user.click(within(row(A)).getByTestId("revert-file"));
    expect(within(row(A)).getByTestId("revert-file-ask").textContent).toContain("Revert src/a.rs to the last commit? Its uncommitted changes are lost.");
    await user.click(within(row(A)).getByTestId("revert-file-cancel"));
    expect(live.called("git_revert_file")).toEqual([]);

    // A file the last commit does not have is deleted: the question says so.
    await user.click(within(row(B)).getByTestId("revert-file"));
    expect(within(row(B)).getByTestId("revert-file-ask").textContent).toContain("Delete b.txt? It is new since the last commit: reverting deletes it.");
    expect(live.called("git_revert_file")).toEqual([]);
    await user.click(within(row(B)).getByTestId("revert-file-confirm"));
    await waitFor(() => expect(live.called("git_revert_file")).toEqual([{ sessionId: "s1", path: B, renamedFrom: null }]));
    await waitFor(() => expect(within(panel).getByTestId("changes-note").textContent).toBe("Reverted b.txt to the last commit."));
  });

  it("against the base: reverts a hunk or a file, and stages a file", async () => {
    const root = "/home/me/.local/share/nerve/projects/nerve-demo/worktrees/s1";
    const file = fileChange(`${root}/src/a.rs`);
    const worktree: WorktreeInfo = {
      session_id: "s1",
      path: root,
      work_dir: root,
      branch: "nerve/fix",
      named: true,
      base_commit: "0123456789abcdef0123456789abcdef01234567",
      base_branch: "main",
      created_ms: 0,
    };
    const { live, user } = setup({ worktree, git: { git_base: [file] } });
    const panel = await showScope(user, "git_base");
    const row = await expand(user, file.path);
    expect(hunkButtons(row)).toEqual(["revert-hunk"]);
    await user.click(within(row).getByTestId("revert-hunk"));
    await waitFor(() => expect(live.called("undo_hunk")).toEqual([{ sessionId: "s1", path: file.path, hunk: file.hunks[0] }]));

    await user.click(within(row).getByTestId("stage-file"));
    await waitFor(() => expect(live.called("git_stage")).toEqual([{ sessionId: "s1", paths: [file.path] }]));

    await user.click(within(row).getByTestId("revert-file"));
    expect(within(row).getByTestId("revert-file-ask").textContent).toContain("Revert src/a.rs to the last commit? Its uncommitted changes are lost.");
    await user.click(within(row).getByTestId("revert-file-confirm"));
    await waitFor(() => expect(live.called("git_revert_file")).toEqual([{ sessionId: "s1", path: file.path, renamedFrom: null }]));
    await waitFor(() => expect(within(panel).getByTestId("changes-note").textContent).toBe("Reverted src/a.rs to the last commit."));
  });

  it("shows a renamed file as old → new and stages, unstages and reverts it with both paths", async () => {
    const OLD = "/home/me/projects/nerve-demo/src/old.rs";
    const NEW = "/home/me/projects/nerve-demo/src/new.rs";
    const renamed = fileChange(NEW, { status: "renamed", renamed_from: OLD, added: 0, removed: 0, hunks: [] });
    const { live, user } = setup({ git: { git_uncommitted: [renamed], git_staged: [renamed] } });
    const panel = await showScope(user, "git_uncommitted");
    const row = await expand(user, NEW);
    expect([within(row).getByTestId("file-path").textContent, within(row).getByTestId("file-status").textContent]).toEqual([
      "src/old.rs → src/new.rs",
      "renamed",
    ]);
    expect(within(row).getByTestId("file-no-text-change").textContent).toBe("Renamed; the content is the same.");

    await user.click(within(row).getByTestId("stage-file"));
    await waitFor(() => expect(live.called("git_stage")).toEqual([{ sessionId: "s1", paths: [NEW, OLD] }]));

    await user.click(within(row).getByTestId("revert-file"));
    expect(within(row).getByTestId("revert-file-ask").textContent).toContain(
      "Revert src/old.rs → src/new.rs to the last commit? Its uncommitted changes are lost: src/old.rs comes back.",
    );
    await user.click(within(row).getByTestId("revert-file-confirm"));
    await waitFor(() => expect(live.called("git_revert_file")).toEqual([{ sessionId: "s1", path: NEW, renamedFrom: OLD }]));

    await showScope(user, "git_staged");
    await user.click(within(panel).getByTestId("unstage-file"));
    await waitFor(() => expect(live.called("git_unstage")).toEqual([{ sessionId: "s1", paths: [NEW, OLD] }]));
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
    // No prompt came back: the conversation is as it was.
    expect(screen.getAllByTestId("user-text").map((u) => u.textContent)).toEqual(["one", "two"]);
    await user.click(within(panel).getByTestId("changes-scope-git_staged"));
    expect(within(panel).queryByTestId("undo-rewind")).toBeNull();
  });

  it("reverts a file at once when nobody else changed it, and asks first when it changed on disk", async () => {
    const { live, user } = setup({ onDisk: [B] });
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
    const { live, user } = setup({ onDisk: [A] });
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

describe("a diff's changed words", () => {
  // `let x = 1;` became `let x = 2;` (the engine cut both lines into words); a line it did not cut
  // shows whole; one span's text looks like markup.
  const hunk: DiffHunk = {
    old_start: 1,
    old_lines: 3,
    new_start: 1,
    new_lines: 3,
    lines: [
      { tag: "context", text: "fn main() {" },
      { tag: "delete", text: "    let x = 1;", inline: [{ text: "    let x = ", changed: false }, { text: "1", changed: true }, { text: ";", changed: false }] },
      { tag: "delete", text: "    old();" },
      { tag: "insert", text: "    let x = 2;", inline: [{ text: "    let x = ", changed: false }, { text: "2", changed: true }, { text: ";", changed: false }] },
      { tag: "insert", text: '    f("<b>");', inline: [{ text: "    f(", changed: false }, { text: '"<b>"', changed: true }, { text: ");", changed: false }] },
    ],
  };
  /** Each drawn line (or half of a side-by-side row): its tag, its text and the words marked in it. */
  const lines = () =>
    [...screen.getByTestId("diff-rows").querySelectorAll("[data-tag]")]
      .filter((l) => l.getAttribute("data-tag") !== "empty")
      .map((l) => [l.getAttribute("data-tag"), l.querySelector(".code")!.textContent, [...l.querySelectorAll("mark.word")].map((m) => m.textContent)]);

  it("marks the words that changed inside a modified line, unified and side by side, and shows other lines whole", async () => {
    const user = userEvent.setup();
    render(DiffView, { hunks: [hunk], path: "src/main.rs" });
    const expected = [
      ["context", "fn main() {", []],
      ["delete", "    let x = 1;", ["1"]],
      ["delete", "    old();", []],
      ["insert", "    let x = 2;", ["2"]],
      ["insert", '    f("<b>");', ['"<b>"']],
    ];
    expect(lines()).toEqual(expected);
    // A span's text is text: nothing in it becomes an element.
    expect(screen.getByTestId("diff-rows").querySelector("b")).toBeNull();

    await user.click(screen.getByTestId("diff-split"));
    // Side by side: the old line left, the new one right, row by row.
    expect(lines()).toEqual([
      ["context", "fn main() {", []],
      ["context", "fn main() {", []],
      ["delete", "    let x = 1;", ["1"]],
      ["insert", "    let x = 2;", ["2"]],
      ["delete", "    old();", []],
      ["insert", '    f("<b>");', ['"<b>"']],
    ]);
  });
});
