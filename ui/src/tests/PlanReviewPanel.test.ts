// The plan review (ExitPlanMode) in a live session: line comments and feedback go back with Keep
// planning; Approve takes notes and the mode the work continues in, or continues the plan in a
// new session with a fresh context.
import { describe, expect, it, vi } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import App from "../App.svelte";
import Conversation from "../lib/components/Conversation.svelte";
import type { PermissionRequest } from "../bindings/PermissionRequest";
import { queued, request } from "./fixtures";
import { type Handler, type Live, type Turn, liveSession, pastArmDelay, sessionInfo } from "./live";

const PLAN = ["# Rename the parser", "", "1. Read the module", "2. Rename the module", "3. Fix the imports", "", "5. Run the tests"].join("\n");

const planRequest = (fields: Partial<PermissionRequest> = {}) =>
  request({
    id: "r-plan",
    tool_name: "ExitPlanMode",
    input: { plan: PLAN },
    summary: "plan of 7 lines",
    reason: "Approve the plan? Leaving plan mode needs the user's approval",
    ...fields,
  });

/** The engine takes every mode switch. */
const takesModes: Record<string, Handler> = { set_permission_mode: (args) => args.mode };

/** A turn in plan mode that asks to approve the plan. */
function ask(turn: Turn, req = planRequest()) {
  turn.send(queued("tu-r-plan", 1, false, "ExitPlanMode", "plan of 7 lines"));
  turn.send({ type: "permission_requested", request: req });
}

async function planInConversation(req = planRequest()) {
  const live = liveSession(sessionInfo({ mode: "plan" }), takesModes);
  const user = userEvent.setup();
  render(Conversation, { session: live.session, onclose: vi.fn() });
  await user.type(screen.getByTestId("prompt-input"), "rename the parser{Enter}");
  await waitFor(() => expect(live.turns).toHaveLength(1));
  ask(live.turns[0]!, req);
  await screen.findByTestId("plan-approve");
  return { live, user };
}

/** The commands the plan review sends, in order, with their arguments (send_prompt's channel left out). */
function sent(live: Live, ...cmds: string[]) {
  return live.calls
    .filter((c) => cmds.includes(c.cmd))
    .map(({ cmd, args }) => {
      const { onEvent: _channel, ...rest } = args;
      return { cmd, args: rest };
    });
}

const line = (n: number) => screen.getAllByTestId("plan-line").find((l) => l.dataset.line === String(n))!;

describe("Plan review: line comments", () => {
  it("Keep planning sends the line comments, quoted by line, and the feedback", async () => {
    const { live, user } = await planInConversation();
    const toggle = screen.getByTestId("plan-comment-mode");
    expect(toggle.getAttribute("aria-pressed")).toBe("false");
    await user.click(toggle);
    expect(toggle.getAttribute("aria-pressed")).toBe("true");
    expect(screen.getAllByTestId("plan-line").map((l) => [l.dataset.line, l.querySelector(".text")?.textContent])).toEqual([
      ["1", "# Rename the parser"],
      ["2", ""],
      ["3", "1. Read the module"],
      ["4", "2. Rename the module"],
      ["5", "3. Fix the imports"],
      ["6", ""],
      ["7", "5. Run the tests"],
    ]);

    // A click on the line opens its box; Enter saves.
    await user.click(line(4));
    await user.type(screen.getByTestId("plan-comment-input"), "keep the old name{Enter}");
    expect(screen.queryByTestId("plan-comment-input")).toBeNull();
    // From the keyboard: the line's "+" button.
    within(line(7)).getByTestId("plan-line-add").focus();
    await user.keyboard("{Enter}");
    await user.type(screen.getByTestId("plan-comment-input"), "run only the parser's tests first");
    await user.click(screen.getByTestId("plan-comment-save"));
    // Edited, and one added then removed.
    await user.click(within(screen.getAllByTestId("plan-comment")[0]!).getByTestId("plan-comment-edit"));
    await user.type(screen.getByTestId("plan-comment-input"), " as an alias{Enter}");
    await user.click(line(1));
    await user.type(screen.getByTestId("plan-comment-input"), "a shorter title{Enter}");
    expect(screen.getAllByTestId("plan-comment").map((c) => [c.dataset.line, c.querySelector(".comment-text")?.textContent])).toEqual([
      ["1", "a shorter title"],
      ["4", "keep the old name as an alias"],
      ["7", "run only the parser's tests first"],
    ]);
    await user.click(within(screen.getAllByTestId("plan-comment")[0]!).getByTestId("plan-comment-remove"));
    expect(screen.getAllByTestId("plan-comment").map((c) => c.dataset.line)).toEqual(["4", "7"]);
    expect(screen.getByTestId("plan-comment-count").textContent).toBe("(2)");

    await user.type(screen.getByTestId("plan-feedback"), "Also update the docs");
    await user.click(screen.getByTestId("plan-keep-planning"));
    await waitFor(() => expect(live.called("answer_permission")).toHaveLength(1));
    expect(live.called("answer_permission")).toEqual([
      {
        sessionId: "s1",
        requestId: "r-plan",
        answer: {
          answer: "deny",
          message: [
            "Review of the plan:",
            '- Line 4 ("2. Rename the module"): keep the old name as an alias',
            "- Line 7 (\"5. Run the tests\"): run only the parser's tests first",
            "Also update the docs",
          ].join("\n"),
        },
      },
    ]);
    expect(live.called("set_permission_mode")).toEqual([]);
  });

  it("Escape in a comment box cancels it, not the plan; a comment still being typed goes with Keep planning", async () => {
    const { live, user } = await planInConversation();
    await pastArmDelay();
    await user.click(screen.getByTestId("plan-comment-mode"));
    await user.click(line(3));
    await user.type(screen.getByTestId("plan-comment-input"), "never mind{Escape}");
    expect(screen.queryByTestId("plan-comment-input")).toBeNull();
    expect(screen.queryByTestId("plan-comment")).toBeNull();
    expect(document.activeElement).toBe(within(line(3)).getByTestId("plan-line-add"));
    expect(live.called("answer_permission")).toEqual([]);

    await user.click(line(5));
    await user.type(screen.getByTestId("plan-comment-input"), "also the tests' imports");
    // Back to the Markdown: the comment typed is kept.
    await user.click(screen.getByTestId("plan-comment-mode"));
    expect(screen.getByTestId("plan").querySelector("h1")?.textContent).toBe("Rename the parser");
    await user.click(screen.getByTestId("plan-keep-planning"));
    await waitFor(() => expect(live.called("answer_permission")).toHaveLength(1));
    expect(live.called("answer_permission")).toEqual([
      {
        sessionId: "s1",
        requestId: "r-plan",
        answer: { answer: "deny", message: 'Review of the plan:\n- Line 5 ("3. Fix the imports"): also the tests\' imports' },
      },
    ]);
  });
});

describe("Plan review: size", () => {
  it("may take 70% of the window; the plan scrolls inside it and the answers stay in view", async () => {
    await planInConversation();
    expect(getComputedStyle(screen.getByTestId("permission-dialog")).maxHeight).toBe("70vh");
    const body = screen.getByTestId("permission-body");
    expect(getComputedStyle(body).overflow).toBe("auto");
    expect(getComputedStyle(screen.getByTestId("plan")).overflow).toBe("auto");
    expect(body.contains(screen.getByTestId("plan-notes"))).toBe(true);
    expect(body.contains(screen.getByTestId("plan-approve"))).toBe(false);
  });
});

describe("Plan review: Approve", () => {
  it("with notes and Accept edits (the default): the plan with the notes as the edited input, then the mode", async () => {
    const { live, user } = await planInConversation();
    expect((screen.getByTestId("plan-mode-acceptEdits") as HTMLInputElement).checked).toBe(true);
    // Only the app can start a new session in this one's place.
    expect(screen.queryByTestId("plan-clear-context")).toBeNull();
    await user.type(screen.getByTestId("plan-notes"), "Keep the public API as it is");
    await user.click(screen.getByTestId("plan-approve"));
    await waitFor(() => expect(live.called("set_permission_mode")).toHaveLength(1));
    expect(sent(live, "answer_permission", "set_permission_mode")).toEqual([
      {
        cmd: "answer_permission",
        args: {
          sessionId: "s1",
          requestId: "r-plan",
          answer: {
            answer: "allow_once",
            updated_input: { plan: `${PLAN}\n\n## Notes from the user\nKeep the public API as it is` },
          },
        },
      },
      { cmd: "set_permission_mode", args: { sessionId: "s1", mode: "acceptEdits" } },
    ]);
    await waitFor(() => expect((screen.getByTestId("mode-switcher") as HTMLSelectElement).value).toBe("acceptEdits"));
  });

  it("without notes and with Ask before edits, from the keyboard: no edited input, then the default mode", async () => {
    const { live, user } = await planInConversation();
    expect(within(screen.getByTestId("plan-mode")).getAllByRole("radio").map((r) => (r as HTMLInputElement).value)).toEqual([
      "default",
      "acceptEdits",
      "auto",
    ]);
    await user.click(screen.getByTestId("plan-mode-default"));
    await pastArmDelay();
    await user.keyboard("y"); // the focus is on the radio: Y still approves
    await waitFor(() => expect(live.called("set_permission_mode")).toHaveLength(1));
    expect(sent(live, "answer_permission", "set_permission_mode")).toEqual([
      { cmd: "answer_permission", args: { sessionId: "s1", requestId: "r-plan", answer: { answer: "allow_once", updated_input: null } } },
      { cmd: "set_permission_mode", args: { sessionId: "s1", mode: "default" } },
    ]);
  });

  it("sets no mode when the answer could not be delivered", async () => {
    const live = liveSession(sessionInfo({ mode: "plan" }), {
      ...takesModes,
      answer_permission: () => {
        throw "the request is gone";
      },
    });
    const user = userEvent.setup();
    render(Conversation, { session: live.session, onclose: vi.fn() });
    await user.type(screen.getByTestId("prompt-input"), "rename the parser{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    ask(live.turns[0]!);
    await user.click(await screen.findByTestId("plan-approve"));
    expect((await screen.findByRole("alert")).textContent).toContain("the request is gone");
    expect(live.called("set_permission_mode")).toEqual([]);
  });

  it("a sub-agent's plan offers no mode (the session's is its parent's) and sets none", async () => {
    const { live, user } = await planInConversation(planRequest({ agent_label: "planner #1", agent_call_id: "tu-agent" }));
    expect(screen.queryByTestId("plan-mode")).toBeNull();
    await user.click(screen.getByTestId("plan-approve"));
    await waitFor(() => expect(live.called("answer_permission")).toHaveLength(1));
    expect(live.called("answer_permission")).toEqual([
      { sessionId: "s1", requestId: "r-plan", answer: { answer: "allow_once", updated_input: null } },
    ]);
    expect(live.called("set_permission_mode")).toEqual([]);
  });
});

describe("Plan review: Clear the context first", () => {
  it("denies saying why, stops the turn, and continues the plan in a new session in the mode chosen", async () => {
    let started = 0;
    const live = liveSession(sessionInfo({ mode: "plan" }), {
      ...takesModes,
      start_session: () => sessionInfo({ session_id: `s${++started}`, mode: started > 1 ? "default" : "plan" }),
    });
    const user = userEvent.setup();
    render(App);
    await user.type(await screen.findByTestId("project-path-input"), "/home/me/projects/nerve-demo");
    await user.click(screen.getByTestId("project-path-open"));
    await user.type(await screen.findByTestId("prompt-input"), "rename the parser{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    ask(live.turns[0]!);

    await user.click(await screen.findByTestId("plan-clear-context"));
    expect(screen.getByTestId("permission-body").textContent).toContain("starts a new session");
    await user.click(screen.getByTestId("plan-mode-auto"));
    await user.type(screen.getByTestId("plan-notes"), "Small commits");
    await user.click(screen.getByTestId("plan-approve"));

    await waitFor(() => expect(live.turns).toHaveLength(2), { timeout: 3000 }); // several steps: give a busy machine time
    const prompt = `Implement this plan:\n\n${PLAN}\n\n## Notes from the user\nSmall commits`;
    expect(sent(live, "answer_permission", "abort_turn", "start_session", "end_session", "set_permission_mode", "send_prompt")).toEqual([
      { cmd: "start_session", args: { projectPath: "/home/me/projects/nerve-demo", resume: null } },
      { cmd: "send_prompt", args: { sessionId: "s1", prompt: "rename the parser", images: [], attachments: [] } },
      {
        cmd: "answer_permission",
        args: {
          sessionId: "s1",
          requestId: "r-plan",
          answer: { answer: "deny", message: "The user approved the plan and continues it in a new session with a fresh context." },
        },
      },
      { cmd: "abort_turn", args: { sessionId: "s1" } },
      { cmd: "start_session", args: { projectPath: "/home/me/projects/nerve-demo", resume: null } },
      { cmd: "end_session", args: { sessionId: "s1" } },
      { cmd: "set_permission_mode", args: { sessionId: "s2", mode: "auto" } },
      { cmd: "send_prompt", args: { sessionId: "s2", prompt, images: [], attachments: [] } },
    ]);
    // The new session took the old one's place, running the plan in the mode chosen.
    expect(screen.getAllByTestId("session-view").map((v) => v.dataset.sessionId)).toEqual(["s2"]);
    expect(screen.getByTestId("turn-status").textContent?.trim()).toBe("running");
    expect((screen.getByTestId("mode-switcher") as HTMLSelectElement).value).toBe("auto");
  });
});
