// The live sessions: one SessionStore each (of one or several projects), in the order they were
// opened, and which one is active (shown). Every live session's screen stays mounted; only the
// active one is visible. Pure bookkeeping: starting and ending sessions is App's (through ipc).
import type { SessionStore } from "./conversation/session.svelte";

export class LiveSessions {
  list: SessionStore[] = $state([]);
  activeId: string | null = $state(null);

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
    this.list = this.list.flatMap((s, i) => (i === at ? [store] : s.id === store.id ? [] : [s]));
    if (this.activeId === oldId) this.activeId = store.id;
  }

  activate(id: string) {
    if (this.has(id)) this.activeId = id;
  }

  /** Drops a session; when it was the active one, the next live one shows (the one after it, else
   *  the one before), or none. Returns the store removed. */
  remove(id: string): SessionStore | undefined {
    const at = this.list.findIndex((s) => s.id === id);
    if (at < 0) return undefined;
    const removed = this.list[at];
    this.list = this.list.filter((s) => s.id !== id);
    if (this.activeId === id) this.activeId = (this.list[at] ?? this.list[at - 1])?.id ?? null;
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
