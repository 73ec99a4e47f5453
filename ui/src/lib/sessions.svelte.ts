// The live sessions: one SessionStore each (of one or several projects), in the order they were
// opened, and which one is active (shown). Every live session's screen stays mounted; only the
// active one is visible. Bookkeeping: starting and ending sessions is App's (through ipc). What
// happens in a session the user may not be looking at goes through here: each ended turn is told
// to the shell (which notifies) and the screen reader, and marked in the sidebar until seen.
import type { PermissionRequest } from "../bindings/PermissionRequest";
import type { TranscriptSummary } from "../bindings/TranscriptSummary";
import type { TurnSummary } from "../bindings/TurnSummary";
import { announce } from "./announcer.svelte";
import { firstPromptOf, rowTitle } from "./components/sidebar/rows";
import type { SessionStore } from "./conversation/session.svelte";
import * as ipc from "./ipc";
import { approvalText, isNews, markerFor, turnEndText } from "./turnNotices";

export class LiveSessions {
  list: SessionStore[] = $state([]);
  activeId: string | null = $state(null);
  /** The main area shows the active session (App clears it while the project picker, Settings or
   *  the Outputs browser covers it: a turn ending then is not seen either). */
  private inView = true;
  /** Counts the times the user came to look at the active session (see `looked`). */
  private looks = 0;
  /** Each session's title as the engine last listed it (the sidebar passes its listings on). */
  private listedTitles = new Map<string, string>();
  /** The live sessions' ids in the order the sidebar shows them (it says so as it changes). */
  private sidebarOrder: string[] = [];

  get active(): SessionStore | null {
    return this.list.find((s) => s.id === this.activeId) ?? null;
  }

  get(id: string): SessionStore | undefined {
    return this.list.find((s) => s.id === id);
  }

  has(id: string): boolean {
    return this.list.some((s) => s.id === id);
  }

  /** Permission requests waiting in all live sessions, not only the visible one. */
  get totalWaiting(): number {
    return this.list.reduce((n, s) => n + s.waitingApprovals, 0);
  }

  /** The projects of the live sessions, each once, in the order their first session opened. */
  get projects(): string[] {
    return [...new Set(this.list.map((s) => s.projectPath))];
  }

  /** Adds a session and shows it. A session already live under the same id (resumed again: the
   *  engine ended the older handle) is replaced where it was. */
  add(store: SessionStore, activate = true) {
    this.watch(store);
    const at = this.list.findIndex((s) => s.id === store.id);
    if (at >= 0) this.list = this.list.map((s, i) => (i === at ? store : s));
    else this.list = [...this.list, store];
    if (activate) this.activeId = store.id;
  }

  /** `/clear`: the new session takes the old one's place (and its being active). */
  replace(oldId: string, store: SessionStore) {
    const at = this.list.findIndex((s) => s.id === oldId);
    if (at < 0) {
      this.add(store);
      return;
    }
    this.watch(store);
    this.list = this.list.flatMap((s, i) => (i === at ? [store] : s.id === store.id ? [] : [s]));
    if (this.activeId === oldId) this.activeId = store.id;
  }

  /** Shows a session; opening it (again: a click on the shown one's row too) clears its marker. */
  activate(id: string) {
    const store = this.get(id);
    if (!store) return;
    this.activeId = id;
    this.looks++;
    store.marker = null;
  }

  /** The window got the focus: the session in view has been seen. */
  looked() {
    this.looks++;
    const active = this.active;
    if (active && this.inView) active.marker = null;
  }

  /** Whether the main area shows the active session (App says); coming back to it counts as
   *  looking at it. */
  setInView(inView: boolean) {
    if (inView === this.inView) return;
    this.inView = inView;
    if (inView) this.looked();
  }

  /** Notes the titles of a project's listing (rows keep them as the engine lists them). */
  noteListed(sessions: TranscriptSummary[]) {
    for (const s of sessions) this.listedTitles.set(s.session_id, s.title);
  }

  /** The order the sidebar shows the live sessions in (by project, each project's newest first). */
  noteOrder(ids: string[]) {
    this.sidebarOrder = ids;
  }

  /** The live sessions in the sidebar's order, which the keys that switch sessions follow; one the
   *  sidebar does not show yet comes last. */
  get ordered(): SessionStore[] {
    const listed = this.sidebarOrder.flatMap((id) => this.get(id) ?? []);
    return [...listed, ...this.list.filter((s) => !listed.includes(s))];
  }

  /** The session `step` places from `id` in the sidebar's order, going round; with none shown,
   *  the first (forwards) or the last. */
  neighbour(id: string | null, step: 1 | -1): SessionStore | null {
    const ordered = this.ordered;
    if (ordered.length === 0) return null;
    const at = ordered.findIndex((s) => s.id === id);
    if (at < 0) return step === 1 ? ordered[0]! : ordered.at(-1)!;
    return ordered[(at + step + ordered.length) % ordered.length]!;
  }

  /** A live session's name as its sidebar row shows it: the engine's title (a name the user gave,
   *  or the start of the first prompt), else the first prompt typed here, else "New session". */
  titleOf(store: SessionStore): string {
    return rowTitle(this.listedTitles.get(store.id) || firstPromptOf(store.history));
  }

  /** Whether the user sees the session's screen (the window's focus aside). */
  private shows(id: string): boolean {
    return this.inView && this.activeId === id;
  }

  private watch(store: SessionStore) {
    store.onTurnEnded = (summary) => void this.turnEnded(store, summary);
    store.onPermissionRequested = (request) => this.requested(store, request);
    void store.watchTasks();
  }

  /**
   * A turn's command resolved: the screen reader hears how it ended, and the shell is told (it
   * sends a system notification when the user is not looking and the settings want one). When the
   * shell says the user was not looking, the sidebar marks the session until it is opened. A turn
   * the user stopped, or of a session closed meanwhile, is nobody's news.
   */
  private async turnEnded(store: SessionStore, summary: TurnSummary) {
    const { end, error } = summary;
    if (!isNews(end) || !this.list.includes(store)) return;
    const title = this.titleOf(store);
    announce(turnEndText(title, end, error));
    const shown = this.shows(store.id);
    const looks = this.looks;
    let looking: boolean;
    try {
      looking = await ipc.turnEnded(store.id, title, end, error, shown);
    } catch {
      // No answer from the shell: the page's own focus is the best guess there is.
      looking = shown && document.hasFocus();
    }
    // Opened while the shell answered: seen after all.
    const openedSince = this.looks !== looks && this.shows(store.id);
    if (!looking && !openedSince) store.marker = markerFor(end);
  }

  private requested(store: SessionStore, request: PermissionRequest) {
    if (this.list.includes(store)) announce(approvalText(this.titleOf(store), request));
  }

  /** Drops a session; when it was the active one, the next live one shows (the one after it, else
   *  the one before), or none. Returns the store removed. */
  remove(id: string): SessionStore | undefined {
    const at = this.list.findIndex((s) => s.id === id);
    if (at < 0) return undefined;
    const removed = this.list[at];
    this.list = this.list.filter((s) => s.id !== id);
    if (this.activeId === id) {
      this.activeId = (this.list[at] ?? this.list[at - 1])?.id ?? null;
      this.looked(); // the next one shows now: seen
    }
    return removed;
  }

  /** The session to go back to for a waiting request: the active one if it waits, else the first
   *  that does. */
  firstWaiting(): SessionStore | null {
    const active = this.active;
    if (active && active.waitingApprovals > 0) return active;
    return this.list.find((s) => s.waitingApprovals > 0) ?? null;
  }
}
