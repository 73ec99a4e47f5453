// How a background task reads on screen: its status in words, its duration, the panel's order.
// Pure wording over what the engine reports (TaskView): nothing here decides a task's state.
import type { TaskView } from "../bindings/TaskView";

/** How many lines of a shell's output the panel shows (the engine reads the file's end). */
export const TAIL_LINES = 200;
/** How often a running shell's output is read again while its row is open. */
export const TAIL_POLL_MS = 1000;

/** The status badge: "running", "completed", "failed (exit 3)", "stopped", "lost with the app". */
export function taskStatusLabel(task: TaskView): string {
  switch (task.status) {
    case "running":
      return "running";
    case "completed":
      return "completed";
    case "failed":
      return task.exit_code === null ? "failed" : `failed (exit ${task.exit_code})`;
    case "killed":
      return "stopped";
    case "lost":
      // It was running when the app went away: its process did not outlive the app.
      return "lost with the app";
  }
}

/** How long an ended task ran ("850ms", "2.4s", "12s", "3m 5s", "1h 2m"); null while it runs. */
export function taskDuration(task: TaskView): string | null {
  if (task.ended_at_ms === null) return null;
  return formatDuration(Math.max(0, task.ended_at_ms - task.started_at_ms));
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)}s`;
  if (ms < 60_000) return `${Math.floor(ms / 1000)}s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)}m ${Math.floor((ms % 60_000) / 1000)}s`;
  return `${Math.floor(ms / 3_600_000)}h ${Math.floor((ms % 3_600_000) / 60_000)}m`;
}

/** What a background Bash call's card says in place of its own (instant) completion. */
export function backgroundCardLabel(task: TaskView): string {
  if (task.status === "running") return "running in the background";
  const duration = taskDuration(task);
  return `background task ${taskStatusLabel(task)}${duration && task.status !== "lost" ? ` · ${duration}` : ""}`;
}

/** The panel's order: running tasks first (what can still be watched or stopped), then the
 *  ended ones; newest first within each. */
export function panelOrder(tasks: TaskView[]): TaskView[] {
  const running = (t: TaskView) => (t.status === "running" ? 0 : 1);
  return [...tasks].sort((a, b) => running(a) - running(b) || b.started_at_ms - a.started_at_ms);
}

/** "1 background task running", "3 background tasks running". */
export function runningTitle(count: number): string {
  return `${count} background ${count === 1 ? "task" : "tasks"} running`;
}
