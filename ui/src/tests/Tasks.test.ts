// Background tasks on screen: the Tasks panel (every background shell and sub-agent of the session
// as the engine lists and reports them, running first; Stop; a shell's live output tail, read
// only while its row is open; a sub-agent's way to its Agent card), the header's and the
// sidebar's running counts, and a background Bash call's card saying how its shell is doing.
import { afterEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import type { Channel } from "@tauri-apps/api/core";
import App from "../App.svelte";
import type { Event } from "../bindings/Event";
import type { TaskView } from "../bindings/TaskView";
import Conversation from "../lib/components/Conversation.svelte";
import TasksPanel from "../lib/components/TasksPanel.svelte";
import { backgroundCardLabel, formatDuration, panelOrder, taskStatusLabel } from "../lib/tasks";
import { completed, queued } from "./fixtures";
import { appState, liveSession, projectInfo, sessionInfo, type Handler } from "./live";

const MINUTE = 60_000;

function shellTask(id: string, fields: Partial<TaskView> = {}): TaskView {
  return {
    id,
    tool_use_id: `tu-${id}`,
    kind: { kind: "shell", command: `npm run ${id} -- --watch --port 5173 --host 127.0.0.1` },
    started_at_ms: Date.now() - 2 * MINUTE,
    ended_at_ms: null,
    status: "running",
    exit_code: null,
    output_path: `/tmp/nerve/${id}.out`,
    ...fields,
  };
}

function agentTask(id: string, fields: Partial<TaskView> = {}): TaskView {
  return {
    id,
    tool_use_id: `tu-${id}`,
    kind: { kind: "subagent", description: "Find the flaky test", subagent_type: "Explore" },
    started_at_ms: Date.now() - 30_000,
    ended_at_ms: null,
    status: "running",
    exit_code: null,
    output_path: null,
    ...fields,
  };
}

/** The task as it ended, `ranMs` after it started. */
const ended = (task: TaskView, status: TaskView["status"], ranMs: number, exit_code: number | null = null): TaskView => ({
  ...task,
  status,
  exit_code,
  ended_at_ms: task.started_at_ms + ranMs,
});

const changed = (task: TaskView): Event => ({ type: "task_changed", task });

/** A session whose engine lists `tasks` and keeps the channel of its between-turn events. */
function tasksSession(tasks: TaskView[], handlers: Record<string, Handler> = {}) {
  let watch: Channel<Event> | null = null;
  const live = liveSession(sessionInfo(), {
    list_tasks: () => tasks,
    watch_session: ({ onEvent }) => {
      watch = onEvent as Channel<Event>;
      return null;
    },
    ...handlers,
  });
  /** An event between turns, as the engine sends it on the watch channel. */
  const between = (event: Event) => watch!.onmessage(event);
  return { live, between };
}

const rows = () => screen.getAllByTestId("task-row");
const rowOf = (id: string) => rows().find((r) => r.dataset.taskId === id)!;
const statusOf = (id: string) => within(rowOf(id)).getByTestId("task-status").textContent;
const card = (id: string) => document.querySelector(`[data-tool-use-id="${id}"]`) as HTMLElement;

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("the wording", () => {
  it("says each status as the engine reports it", () => {
    const task = shellTask("bash_1", { started_at_ms: 1_000 });
    expect(taskStatusLabel(task)).toBe("running");
    expect(taskStatusLabel(ended(task, "completed", 12_000, 0))).toBe("completed");
    expect(taskStatusLabel(ended(task, "failed", 12_000, 3))).toBe("failed (exit 3)");
    expect(taskStatusLabel(ended(agentTask("agent-1"), "failed", 12_000))).toBe("failed");
    expect(taskStatusLabel(ended(task, "killed", 12_000))).toBe("stopped");
    expect(taskStatusLabel(ended(task, "lost", 0))).toBe("lost with the app");
    expect(backgroundCardLabel(task)).toBe("running in the background");
    expect(backgroundCardLabel(ended(task, "completed", 12_400, 0))).toBe("background task completed · 12s");
    expect(backgroundCardLabel(ended(task, "failed", 2_500, 1))).toBe("background task failed (exit 1) · 2.5s");
    expect(backgroundCardLabel(ended(task, "lost", 0))).toBe("background task lost with the app");
    expect([450, 2_500, 59_900, 185_000, 3_900_000].map(formatDuration)).toEqual(["450ms", "2.5s", "59s", "3m 5s", "1h 5m"]);
  });

  it("orders running tasks first, newest first within running and ended", () => {
    const order = panelOrder([
      ended(shellTask("old", { started_at_ms: 1 }), "completed", 5, 0),
      shellTask("r-old", { started_at_ms: 2 }),
      ended(shellTask("new", { started_at_ms: 4 }), "failed", 5, 1),
      shellTask("r-new", { started_at_ms: 3 }),
    ]);
    expect(order.map((t) => t.id)).toEqual(["r-new", "r-old", "new", "old"]);
  });
});

describe("the Tasks panel", () => {
  it("lists the session's tasks from list_tasks, running first, with what each does and how it went", async () => {
    const user = userEvent.setup();
    const done = ended(shellTask("bash_1", { started_at_ms: Date.now() - 10 * MINUTE }), "completed", 12_000, 0);
    const running = shellTask("bash_2");
    const { live } = tasksSession([
      done,
      running,
      ended(shellTask("bash_3", { started_at_ms: Date.now() - 60 * MINUTE }), "lost", 0),
      agentTask("agent-a1"),
    ]);
    await live.session.watchTasks();
    render(Conversation, { session: live.session, onclose: vi.fn() });
    expect(screen.queryByTestId("tasks-panel")).toBeNull();
    expect(screen.getByTestId("tasks-running-count").textContent).toBe("2");

    await user.click(screen.getByTestId("tasks-toggle"));
    const panel = screen.getByTestId("tasks-panel");
    expect(screen.getByTestId("tasks-toggle").getAttribute("aria-pressed")).toBe("true");
    expect(rows().map((r) => r.dataset.taskId)).toEqual(["agent-a1", "bash_2", "bash_1", "bash_3"]);

    const command = within(rowOf("bash_2")).getByTestId("task-title");
    expect(command.tagName).toBe("CODE");
    expect(command.getAttribute("title")).toBe("npm run bash_2 -- --watch --port 5173 --host 127.0.0.1");
    expect(statusOf("bash_2")).toBe("running");
    const started = within(rowOf("bash_2")).getByTestId("task-started");
    expect(started.textContent).toBe("started 2 min ago");
    expect(started.getAttribute("title")).toBe(new Date(running.started_at_ms).toLocaleString());
    expect(within(rowOf("bash_2")).queryByTestId("task-duration")).toBeNull();
    expect(within(rowOf("bash_2")).getByTestId("task-stop")).toBeTruthy();

    expect(statusOf("bash_1")).toBe("completed");
    expect(within(rowOf("bash_1")).getByTestId("task-duration").textContent).toBe("ran 12s");
    expect(within(rowOf("bash_1")).queryByTestId("task-stop")).toBeNull();

    // Running when the app went away: it did not outlive the app, and cannot be stopped.
    expect(statusOf("bash_3")).toBe("lost with the app");
    expect(within(rowOf("bash_3")).queryByTestId("task-stop")).toBeNull();

    const agent = rowOf("agent-a1");
    expect(within(agent).getByTestId("task-title").textContent).toBe("Find the flaky test");
    expect(within(agent).getByTestId("task-agent-type").textContent).toBe("Explore");
    expect(within(agent).queryByTestId("task-expand")).toBeNull();
    expect(within(agent).getByTestId("task-show")).toBeTruthy();
    expect(within(agent).getByTestId("task-stop")).toBeTruthy();

    await user.click(within(panel).getByTestId("tasks-close"));
    expect(screen.queryByTestId("tasks-panel")).toBeNull();
  });

  it("says when the session has none", async () => {
    const user = userEvent.setup();
    const { live } = tasksSession([]);
    await live.session.watchTasks();
    render(Conversation, { session: live.session, onclose: vi.fn() });
    expect(screen.queryByTestId("tasks-running-count")).toBeNull();
    await user.click(screen.getByTestId("tasks-toggle"));
    expect(screen.getByTestId("tasks-empty").textContent).toBe("No background tasks in this session.");
  });

  it("follows task_changed between turns, during a turn and when replayed", async () => {
    const user = userEvent.setup();
    const dev = shellTask("bash_1");
    const { live, between } = tasksSession([dev]);
    await live.session.watchTasks();
    render(Conversation, { session: live.session, onclose: vi.fn() });
    await user.click(screen.getByTestId("tasks-toggle"));
    expect(statusOf("bash_1")).toBe("running");

    // It ends after its turn did: the engine says so between turns.
    between(changed(ended(dev, "failed", 3_000, 3)));
    await waitFor(() => expect(statusOf("bash_1")).toBe("failed (exit 3)"));
    expect(rowOf("bash_1").dataset.status).toBe("failed");
    expect(within(rowOf("bash_1")).getByTestId("task-duration").textContent).toBe("ran 3.0s");
    expect(within(rowOf("bash_1")).queryByTestId("task-stop")).toBeNull();
    expect(screen.queryByTestId("tasks-running-count")).toBeNull();

    // Started during a turn: it shows at once, and ends in the same stream.
    await user.type(screen.getByTestId("prompt-input"), "run the tests{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    const tests = shellTask("bash_2", { started_at_ms: Date.now() });
    live.turns[0]!.send(changed(tests));
    await waitFor(() => expect(statusOf("bash_2")).toBe("running"));
    expect(screen.getByTestId("tasks-running-count").textContent).toBe("1");
    live.turns[0]!.send(changed(ended(tests, "completed", 900, 0)));
    await waitFor(() => expect(statusOf("bash_2")).toBe("completed"));
    live.turns[0]!.finish();

    // A replayed stream (session.apply) counts too.
    live.session.apply(changed(agentTask("agent-x")));
    await waitFor(() => expect(statusOf("agent-x")).toBe("running"));
  });

  it("stops a running task with its id, and shows the engine's refusal", async () => {
    const user = userEvent.setup();
    const dev = shellTask("bash_1");
    const agent = agentTask("agent-a1");
    const { live } = tasksSession([dev, agent], {
      stop_task: ({ taskId }) => {
        if (taskId === "agent-a1") throw "the sub-agent already ended";
        return ended(dev, "killed", 5_000);
      },
    });
    await live.session.watchTasks();
    render(Conversation, { session: live.session, onclose: vi.fn() });
    await user.click(screen.getByTestId("tasks-toggle"));

    await user.click(within(rowOf("bash_1")).getByTestId("task-stop"));
    expect(live.called("stop_task")).toEqual([{ sessionId: "s1", taskId: "bash_1" }]);
    await waitFor(() => expect(statusOf("bash_1")).toBe("stopped"));
    expect(within(rowOf("bash_1")).queryByTestId("task-stop")).toBeNull();

    await user.click(within(rowOf("agent-a1")).getByTestId("task-stop"));
    const refusal = await within(rowOf("agent-a1")).findByTestId("task-stop-error");
    expect(refusal.textContent).toBe("Could not stop agent-a1: the sub-agent already ended");
    expect(statusOf("agent-a1")).toBe("running");
  });

  it("reads a running shell's output every second while its row is open, once when it ended, in colour, never as HTML", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
    let output = ["compiling…", "<b>not bold</b> \u001b[32mok\u001b[0m"];
    const { live } = tasksSession([], { tail_task: () => output });
    const dev = shellTask("bash_1");
    live.session.applyTask(dev);
    const view = render(TasksPanel, { session: live.session, onshowcall: vi.fn(), onclose: vi.fn() });
    const reads = () => live.called("tail_task").length;
    await vi.advanceTimersByTimeAsync(3_000);
    expect(reads()).toBe(0); // nothing is read for a closed row

    await fireEvent.click(within(rowOf("bash_1")).getByTestId("task-expand"));
    await vi.advanceTimersByTimeAsync(0);
    expect(live.called("tail_task")).toEqual([{ sessionId: "s1", taskId: "bash_1", count: 200 }]);
    const tail = within(rowOf("bash_1")).getByTestId("task-tail");
    // In the terminal's colours, the escapes gone; the markup it printed is text.
    expect(tail.textContent).toBe("compiling…\n<b>not bold</b> ok");
    expect(tail.querySelector("b")).toBeNull();
    expect(tail.querySelector(".ansi-green-fg")?.textContent).toBe("ok");

    output = [...output, "ready in 300ms"];
    await vi.advanceTimersByTimeAsync(1_000);
    expect(reads()).toBe(2);
    expect(within(rowOf("bash_1")).getByTestId("task-tail").textContent).toContain("ready in 300ms");
    await vi.advanceTimersByTimeAsync(2_000);
    expect(reads()).toBe(4);

    // Collapsed: no more reads.
    await fireEvent.click(within(rowOf("bash_1")).getByTestId("task-expand"));
    expect(within(rowOf("bash_1")).queryByTestId("task-tail")).toBeNull();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(reads()).toBe(4);

    // Open again, then it ends: one last read for its final lines, then none.
    await fireEvent.click(within(rowOf("bash_1")).getByTestId("task-expand"));
    await vi.advanceTimersByTimeAsync(0);
    expect(reads()).toBe(5);
    output = [...output, "exited"];
    live.session.applyTask(ended(dev, "completed", 60_000, 0));
    await vi.advanceTimersByTimeAsync(0);
    expect(reads()).toBe(6);
    expect(within(rowOf("bash_1")).getByTestId("task-tail").textContent).toContain("exited");
    await vi.advanceTimersByTimeAsync(5_000);
    expect(reads()).toBe(6);

    // A running one's reads stop when the panel goes away.
    live.session.applyTask(shellTask("bash_2"));
    await vi.advanceTimersByTimeAsync(0);
    await fireEvent.click(within(rowOf("bash_2")).getByTestId("task-expand"));
    await vi.advanceTimersByTimeAsync(0);
    expect(reads()).toBe(7);
    view.unmount();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(reads()).toBe(7);
  });

  it("shows a sub-agent's Agent card in the conversation", async () => {
    const user = userEvent.setup();
    const { live } = tasksSession([]);
    render(Conversation, { session: live.session, onclose: vi.fn() });
    await user.type(screen.getByTestId("prompt-input"), "look around{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    const turn = live.turns[0]!;
    turn.send(queued("tu-agent-a1", 1, false, "Agent", "Agent Find the flaky test"));
    turn.send({ type: "tool_started", tool_use_id: "tu-agent-a1" });
    turn.send(changed(agentTask("agent-a1")));
    await waitFor(() => expect(card("tu-agent-a1")).toBeTruthy());

    const scrolled = vi.spyOn(Element.prototype, "scrollIntoView");
    await user.click(screen.getByTestId("tasks-toggle"));
    await user.click(within(rowOf("agent-a1")).getByTestId("task-show"));
    await waitFor(() => expect(scrolled.mock.contexts).toContain(card("tu-agent-a1")));
  });
});

describe("a background Bash call's card", () => {
  it("says how its shell is doing, and its link opens the panel at the task", async () => {
    const user = userEvent.setup();
    const { live, between } = tasksSession([], { tail_task: () => ["listening on :5173"] });
    await live.session.watchTasks();
    render(Conversation, { session: live.session, onclose: vi.fn() });
    await user.type(screen.getByTestId("prompt-input"), "start the dev server{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    const turn = live.turns[0]!;
    const dev = shellTask("bash_1", { tool_use_id: "tu-bg", started_at_ms: Date.now() - 1_000 });
    turn.send(queued("tu-bg", 1, false, "Bash", "Bash npm run dev"));
    turn.send({ type: "tool_started", tool_use_id: "tu-bg" });
    turn.send(changed(dev));
    turn.send(completed("tu-bg", { elapsed_ms: 0, content: [{ type: "text", text: "Started bash_1" }] }));
    // A call that ran in the foreground keeps its own status.
    turn.send(queued("tu-fg", 2, false, "Bash", "Bash ls"));
    turn.send({ type: "tool_started", tool_use_id: "tu-fg" });
    turn.send(completed("tu-fg"));
    turn.finish();
    await waitFor(() => expect(card("tu-fg")?.dataset.status).toBe("completed"));

    const bg = card("tu-bg");
    expect(within(bg).getByTestId("background-task-status").textContent).toBe("running in the background");
    expect(within(bg).queryByTestId("tool-status")).toBeNull();
    expect(within(bg).queryByTestId("tool-elapsed")).toBeNull();
    expect(within(card("tu-fg")).getByTestId("tool-status").textContent).toBe("completed");
    expect(within(card("tu-fg")).queryByTestId("background-task-link")).toBeNull();

    const scrolled = vi.spyOn(Element.prototype, "scrollIntoView");
    const link = within(bg).getByTestId("background-task-link");
    expect(link.textContent?.trim()).toBe("task bash_1");
    await user.click(link);
    expect(screen.getByTestId("tasks-panel")).toBeTruthy();
    const tail = await within(rowOf("bash_1")).findByTestId("task-tail");
    await waitFor(() => expect(tail.textContent).toBe("listening on :5173"));
    expect(within(rowOf("bash_1")).getByTestId("task-expand").getAttribute("aria-expanded")).toBe("true");
    await waitFor(() => expect(scrolled.mock.contexts).toContain(rowOf("bash_1")));

    between(changed(ended(dev, "completed", 12_000, 0)));
    await waitFor(() => expect(within(bg).getByTestId("background-task-status").textContent).toBe("background task completed · 12s"));
    between(changed(ended(dev, "failed", 12_000, 1)));
    await waitFor(() => expect(within(bg).getByTestId("background-task-status").textContent).toBe("background task failed (exit 1) · 12s"));
    between(changed(ended(dev, "lost", 0)));
    await waitFor(() => expect(within(bg).getByTestId("background-task-status").textContent).toBe("background task lost with the app"));
  });
});

describe("running counts", () => {
  const ALPHA = "/home/me/projects/alpha";

  it("the header and the session's sidebar row count the running tasks", async () => {
    const user = userEvent.setup();
    const dev = shellTask("bash_1");
    const agent = agentTask("agent-a1");
    let watch: Channel<Event> | null = null;
    liveSession(sessionInfo(), {
      get_app_state: () => ({ ...appState(), recent_projects: [ALPHA] }),
      open_project: ({ path }) => projectInfo(String(path)),
      start_session: ({ projectPath }) => sessionInfo({ session_id: "new-1", project_path: String(projectPath) }),
      list_sessions: () => [],
      list_tasks: () => [dev, agent, ended(shellTask("bash_0"), "completed", 1_000, 0)],
      watch_session: ({ onEvent }) => {
        watch = onEvent as Channel<Event>;
        return null;
      },
    });
    render(App);
    await user.click(await within(await screen.findByTestId("sidebar")).findByTestId("sidebar-new-session"));
    const row = () => screen.getAllByTestId("sidebar-session").find((r) => r.dataset.sessionId === "new-1")!;
    const count = await waitFor(() => within(row()).getByTestId("session-tasks"));
    expect(count.textContent).toBe("2");
    expect(count.getAttribute("title")).toBe("2 background tasks running");
    expect(screen.getByTestId("tasks-running-count").textContent).toBe("2");

    watch!.onmessage(changed(ended(dev, "completed", 5_000, 0)));
    await waitFor(() => expect(within(row()).getByTestId("session-tasks").textContent).toBe("1"));
    expect(within(row()).getByTestId("session-tasks").getAttribute("title")).toBe("1 background task running");
    expect(screen.getByTestId("tasks-running-count").textContent).toBe("1");

    watch!.onmessage(changed(ended(agent, "killed", 5_000)));
    await waitFor(() => expect(within(row()).queryByTestId("session-tasks")).toBeNull());
    expect(screen.queryByTestId("tasks-running-count")).toBeNull();
  });
});
