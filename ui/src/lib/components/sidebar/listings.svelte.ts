// The sessions the engine lists for each project the sidebar shows, with the search applied in
// the engine (`list_sessions` with the query). A refresh's answer is dropped when a newer one for
// the same project was asked for meanwhile (the search changed, a turn ended), so an old answer
// never replaces a newer one.
import { untrack } from "svelte";
import type { TranscriptSummary } from "../../../bindings/TranscriptSummary";
import type { WorktreeStatus } from "../../../bindings/WorktreeStatus";
import { errorText, listSessions, listWorktrees } from "../../ipc";

export interface Listing {
  sessions: TranscriptSummary[];
  /** The project's session worktrees (empty when it has none, or git could not say). */
  worktrees: WorktreeStatus[];
  /** An answer came (the list may be empty). */
  loaded: boolean;
  /** Why the last listing failed (the previous sessions stay). */
  error: string | null;
}

export class SessionListings {
  byPath: Record<string, Listing> = $state({});
  /** The search the listings answer ("" lists everything). */
  query = $state("");
  private asked: Record<string, number> = {};

  /** `onlisted` hears every listing that comes in (the live sessions keep their titles from it). */
  constructor(private readonly onlisted: (sessions: TranscriptSummary[]) => void = () => {}) {}

  /** Whether the project was ever asked for. */
  requested(path: string): boolean {
    return path in this.asked;
  }

  /** Lists the project's sessions again (with the current search). Never throws. */
  async refresh(path: string): Promise<void> {
    const n = (this.asked[path] ?? 0) + 1;
    this.asked[path] = n;
    const query = untrack(() => this.query.trim());
    try {
      const [sessions, worktrees] = await Promise.all([
        listSessions(path, query === "" ? null : query),
        // A branch chip is a detail: a project whose worktrees cannot be listed still lists sessions.
        listWorktrees(path).catch(() => [] as WorktreeStatus[]),
      ]);
      if (this.asked[path] !== n) return;
      this.byPath[path] = { sessions: sessions ?? [], worktrees: worktrees ?? [], loaded: true, error: null };
      this.onlisted(sessions ?? []);
    } catch (e) {
      if (this.asked[path] !== n) return;
      const previous = this.byPath[path];
      this.byPath[path] = { sessions: previous?.sessions ?? [], worktrees: previous?.worktrees ?? [], loaded: true, error: errorText(e) };
    }
  }

  /** A session is gone (deleted): its row goes at once, before the project is listed again. */
  drop(path: string, sessionId: string) {
    const listing = this.byPath[path];
    if (listing) this.byPath[path] = { ...listing, sessions: listing.sessions.filter((s) => s.session_id !== sessionId) };
  }

  /** A new search: every given project is listed again with it. */
  search(query: string, paths: string[]) {
    this.query = query;
    for (const path of paths) void this.refresh(path);
  }
}
