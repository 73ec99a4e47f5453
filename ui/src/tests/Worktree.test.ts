// Sessions in git worktrees of their own, in the whole app: the sidebar's branch button starts
// one, its row shows its branch and where it stands, and its header lands its work (a conflict
// shows both sides of each file) or throws it away after saying what would be lost. Worktrees
// left behind by deleted sessions (or whose folder is gone) are listed under the project and
// cleaned up there.
import { describe, expect, it } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import App from "../App.svelte";
import type { CleanReport } from "../bindings/CleanReport";
import type { DiscardPreview } from "../bindings/DiscardPreview";
import type { LandOutcome } from "../bindings/LandOutcome";
import type { WorktreeInfo } from "../bindings/WorktreeInfo";
import type { WorktreeStatus } from "../bindings/WorktreeStatus";
import { sessionSummary } from "./fixtures";
import { appState, liveSession, projectInfo, sessionInfo, type Handler } from "./live";

const ALPHA = "/home/me/projects/alpha";
const WORKTREE: WorktreeInfo = {
  session_id: "wt-1",
  path: "/home/me/.local/share/nerve/projects/alpha/worktrees/wt-1",
  work_dir: "/home/me/.local/share/nerve/projects/alpha/worktrees/wt-1",
  branch: "nerve/fix-the-parser",
  named: true,
  base_commit: "0123456789abcdef0123456789abcdef01234567",
  base_branch: "main",
  created_ms: 0,
};
const STATUS: WorktreeStatus = { info: WORKTREE, ahead: 2, behind: 0, uncommitted: 3, missing: false, orphaned: false };

function app(handlers: Record<string, Handler> = {}) {
  const live = liveSession(sessionInfo(), {
    get_app_state: () => ({ ...appState(), recent_projects: [ALPHA] }),
    open_project: ({ path }) => projectInfo(String(path)),
    start_session: ({ projectPath, worktree }) =>
      sessionInfo({ session_id: "wt-1", project_path: String(projectPath), worktree: worktree === true ? WORKTREE : null }),
    list_sessions: () => [],
    list_worktrees: () => [STATUS],
    ...handlers,
  });
  render(App);
  return { live, user: userEvent.setup() };
}

async function startInWorktree(user: ReturnType<typeof userEvent.setup>) {
  await user.click(await screen.findByTestId("sidebar-new-worktree-session"));
  return await screen.findByTestId("worktree-button");
}

describe("sessions in worktrees", () => {
  it("starts one from the sidebar's branch button and shows its branch in the row and the header", async () => {
    const { live, user } = app();
    const button = await startInWorktree(user);
    expect(live.called("start_session")).toEqual([{ projectPath: ALPHA, resume: null, worktree: true }]);
    expect(button.textContent?.trim()).toBe("nerve/fix-the-parser");
    const chip = await screen.findByTestId("sidebar-session-branch");
    expect(chip.textContent?.replace(/\s+/g, "")).toBe("nerve/fix-the-parser↑2±3");
    expect(chip.title).toBe("Branch nerve/fix-the-parser: 2 commits ahead of main, 3 uncommitted changes");
    await user.click(button);
    expect((await screen.findByTestId("worktree-standing")).textContent).toBe(": 2 commits ahead, 3 uncommitted changes");
  });

  it("lands the work and says what changed", async () => {
    const landed: LandOutcome = {
      outcome: "landed",
      strategy: "squash",
      committed_first: "fedcba9876543210fedcba9876543210fedcba98",
      head: "aaaaaaaabbbbbbbbccccccccddddddddeeeeeeee",
      files: ["src/parser.rs", "tests/parser.rs"],
    };
    const { live, user } = app({ land_worktree: () => landed });
    await user.click(await startInWorktree(user));
    const panel = await screen.findByTestId("worktree-panel");
    await user.click(within(panel).getByTestId("land-squash"));
    await user.type(within(panel).getByTestId("land-message"), "Fix the parser");
    await user.click(within(panel).getByTestId("land-button"));
    const result = await within(panel).findByTestId("land-result");
    expect(live.called("land_worktree")).toEqual([
      { projectPath: ALPHA, sessionId: "wt-1", strategy: "squash", message: "Fix the parser" },
    ]);
    expect(within(result).getByTestId("land-summary").textContent?.replace(/\s+/g, " ").trim()).toBe(
      "Landed (squash): 2 files changed, HEAD is now aaaaaaaa; the session's uncommitted work was committed first as fedcba98.",
    );
    expect([...result.querySelectorAll("li")].map((li) => li.textContent)).toEqual(["src/parser.rs", "tests/parser.rs"]);
  });

  it("shows a conflict file by file with both sides", async () => {
    const conflict: LandOutcome = {
      outcome: "conflict",
      branch: "nerve/fix-the-parser",
      files: [{ path: "src/parser.rs", ours: "fn main() {}\n", theirs: "fn main() { parse(); }\n" }],
    };
    const { user } = app({ land_worktree: () => conflict });
    await user.click(await startInWorktree(user));
    await user.click(await screen.findByTestId("land-button"));
    const shown = await screen.findByTestId("land-conflict");
    expect(shown.querySelector("p")?.textContent?.replace(/\s+/g, " ").trim()).toBe(
      "Landing nerve/fix-the-parser conflicts in 1 file. The main checkout was left as it was; ask the agent to rebase its work, or land it another way.",
    );
    expect(within(shown).getByTestId("conflict-ours").textContent).toBe("fn main() {}\n");
    expect(within(shown).getByTestId("conflict-theirs").textContent).toBe("fn main() { parse(); }\n");
  });

  it("says what discarding would lose, keeps the branch when asked, and closes the session", async () => {
    const preview: DiscardPreview = {
      info: WORKTREE,
      uncommitted: [" M src/parser.rs"],
      unmerged_commits: ["abc1234 Parse numbers"],
    };
    const { live, user } = app({ worktree_discard_preview: () => preview, discard_worktree: () => WORKTREE });
    await user.click(await startInWorktree(user));
    await user.click(await screen.findByTestId("discard-button"));
    const confirm = await screen.findByTestId("discard-confirm");
    expect(within(confirm).getAllByTestId("discard-uncommitted").map((li) => li.textContent)).toEqual([" M src/parser.rs (not committed)"]);
    expect(within(confirm).getAllByTestId("discard-commit").map((li) => li.textContent)).toEqual(["abc1234 Parse numbers (only on this branch)"]);
    await user.click(within(confirm).getByTestId("discard-keep-branch"));
    expect(within(confirm).queryAllByTestId("discard-commit")).toHaveLength(0);
    await user.click(within(confirm).getByTestId("discard-yes"));
    await waitFor(() => expect(live.called("discard_worktree")).toEqual([{ projectPath: ALPHA, sessionId: "wt-1", keepBranch: true }]));
    await waitFor(() => expect(screen.queryByTestId("worktree-button")).toBeNull());
  });

  it("shows the engine's refusal when landing cannot start", async () => {
    const { user } = app({
      land_worktree: () => {
        throw "the main checkout is in the middle of a merge: finish or abort it first, then land the session";
      },
    });
    await user.click(await startInWorktree(user));
    await user.click(await screen.findByTestId("land-button"));
    expect((await screen.findByTestId("worktree-error")).textContent).toBe(
      "the main checkout is in the middle of a merge: finish or abort it first, then land the session",
    );
  });
});

describe("worktrees left behind", () => {
  const left = (session_id: string, branch: string, fields: Partial<WorktreeStatus> = {}): WorktreeStatus => ({
    ...STATUS,
    info: { ...WORKTREE, session_id, branch, path: `/home/me/.local/share/nerve/projects/alpha/worktrees/${session_id}` },
    ...fields,
  });
  const ORPHAN = left("gone-1", "nerve/old-idea", { orphaned: true, uncommitted: 2 });
  const MERGED = left("gone-2", "nerve/merged-work", { orphaned: true, uncommitted: 0 });
  const MISSING = left("gone-3", "nerve/spike", { missing: true, uncommitted: 0 });

  it("lists them under the project and cleans them up, saying what was removed and what was kept", async () => {
    let worktrees = [STATUS, ORPHAN, MERGED, MISSING];
    const report: CleanReport = {
      removed: [MERGED.info, MISSING.info],
      kept_branches: ["nerve/spike"],
      kept: [{ info: ORPHAN.info, why: "2 uncommitted change(s); discard it by name to lose them" }],
    };
    const { live, user } = app({
      list_worktrees: () => worktrees,
      clean_worktrees: () => {
        worktrees = [STATUS, ORPHAN];
        return report;
      },
    });
    const stale = await screen.findByTestId("stale-worktrees");
    expect(within(stale).getByTestId("stale-worktrees-headline").textContent).toBe(
      "2 worktrees left by deleted sessions; 1 worktree whose folder is gone",
    );
    // The live session's worktree is no part of it.
    expect(within(stale).getAllByTestId("stale-worktree").map((w) => w.textContent)).toEqual([
      "nerve/old-idea (session deleted)",
      "nerve/merged-work (session deleted)",
      "nerve/spike (folder gone)",
    ]);

    const listed = live.called("list_worktrees").length;
    await user.click(within(stale).getByTestId("clean-worktrees"));
    await waitFor(() => expect(live.called("clean_worktrees")).toEqual([{ projectPath: ALPHA }]));
    const shown = await within(stale).findByTestId("clean-report");
    expect(within(shown).getByTestId("clean-removed").textContent).toBe("Removed 2 worktrees: nerve/merged-work, nerve/spike.");
    expect(within(shown).getByTestId("clean-kept-branches").textContent).toBe(
      "Branch kept (it has commits no other branch has): nerve/spike.",
    );
    expect(within(shown).getAllByTestId("clean-kept").map((k) => k.textContent)).toEqual([
      "nerve/old-idea: 2 uncommitted change(s); discard it by name to lose them",
    ]);
    // The list is asked again: the kept worktree is still there.
    await waitFor(() => expect(live.called("list_worktrees").length).toBeGreaterThan(listed));
    await waitFor(() => expect(within(stale).getAllByTestId("stale-worktree").map((w) => w.dataset.branch)).toEqual(["nerve/old-idea"]));
    expect(within(stale).getByTestId("stale-worktrees-headline").textContent).toBe("1 worktree left by deleted sessions");
  });

  it("shows nothing while none is left behind, and shows one once a deleted session leaves it", async () => {
    let worktrees = [STATUS];
    const { live, user } = app({
      list_sessions: () => (worktrees.length === 1 ? [sessionSummary("old")] : []),
      list_worktrees: () => worktrees,
      delete_session: () => {
        worktrees = [STATUS, left("old", "nerve/old", { orphaned: true })];
        return { bytes: 10, outputs: 0, kept_branch: null };
      },
    });
    const row = await screen.findByTestId("sidebar-session");
    expect(screen.queryByTestId("stale-worktrees")).toBeNull();
    await user.click(within(row).getByTestId("session-menu"));
    await user.click(screen.getByTestId("session-delete"));
    await user.click(screen.getByTestId("session-delete-yes"));
    await waitFor(() => expect(live.called("delete_session")).toEqual([{ projectPath: ALPHA, sessionId: "old" }]));
    const stale = await screen.findByTestId("stale-worktrees");
    expect(within(stale).getAllByTestId("stale-worktree").map((w) => w.dataset.branch)).toEqual(["nerve/old"]);
  });

  it("says why cleaning failed", async () => {
    const { user } = app({
      list_worktrees: () => [MISSING],
      clean_worktrees: () => {
        throw "git worktree prune failed: not a git repository";
      },
    });
    await user.click(await screen.findByTestId("clean-worktrees"));
    expect((await screen.findByTestId("clean-worktrees-error")).textContent).toBe(
      "Could not clean up the worktrees: git worktree prune failed: not a git repository",
    );
  });
});
