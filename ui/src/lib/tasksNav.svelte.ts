// Whether a session's Tasks panel shows, and which task it was asked to bring forward. The
// session's screen owns one and hands it down as a context: a tool card deep in the message list
// (a background Bash call) opens the panel at its task without a callback chain through the list.
import { getContext, setContext } from "svelte";
import type { SessionStore } from "./conversation/session.svelte";

export class TasksNav {
  open = $state(false);
  /** The task to expand and scroll to; `nav` moves with every request, so asking for the same
   *  task again brings it forward again. */
  reveal: { id: string; nav: number } | null = $state(null);
  private navs = 0;

  constructor(readonly session: SessionStore) {}

  /** The header's button: shown as it was left (a task asked for earlier is not brought back). */
  toggle() {
    this.open = !this.open;
    this.reveal = null;
  }

  close() {
    this.open = false;
    this.reveal = null;
  }

  /** Opens the panel with the task expanded and in view. */
  show(taskId: string) {
    this.open = true;
    this.reveal = { id: taskId, nav: ++this.navs };
  }
}

const KEY = Symbol("tasks-nav");

export function setTasksNav(nav: TasksNav) {
  setContext(KEY, nav);
}

/** The session screen's Tasks panel state; undefined outside a session's screen (a card rendered
 *  on its own shows no task link). */
export function tasksNav(): TasksNav | undefined {
  return getContext<TasksNav | undefined>(KEY);
}
