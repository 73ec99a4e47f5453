// Batch approvals: several waiting calls of one engine batch are answered together in one panel
// (rows with checkboxes, Allow all, Allow selected, deny the others, a rule the engine says which
// calls it covers), each answer still going to its own request. A lone request, requests of other
// batches and a sub-agent's requests next to the main agent's keep being answered on their own.
import { afterEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import type { Event } from "../bindings/Event";
import type { PermissionRequest } from "../bindings/PermissionRequest";
import { batchKey, firstGroup } from "../lib/batch";
import Conversation from "../lib/components/Conversation.svelte";
import { initialState, reduceAll } from "../lib/conversation/reducer";
import { completed, createHunk, filePreview, mainHunk, planRequest, queued, request } from "./fixtures";
import { liveSession, pastArmDelay, sessionInfo, type Handler, type Live } from "./live";
import { subagentStep } from "./subagentFixtures";

afterEach(() => vi.restoreAllMocks());

/** A Read of `path` outside the project, waiting for approval. */
function readRequest(id: string, path: string, fields: Partial<PermissionRequest> = {}): PermissionRequest {
  return request({
    id,
    tool_name: "Read",
    input: { file_path: path },
    summary: `Read ${path}`,
    reason: `${path} is outside the project`,
    ...fields,
  });
}

/** The call queued in `batch` (concurrent, as the engine batches reads), then its request. */
function waiting(req: PermissionRequest, batch = 1): Event[] {
  return [
    queued(req.tool_use_id, batch, true, req.tool_name, req.summary, req.destructive),
    { type: "permission_requested", request: req },
  ];
}

/** The three reads of one batch. */
const threeReads = () => [readRequest("r1", "/outside/a.txt"), readRequest("r2", "/outside/b.txt"), readRequest("r3", "/elsewhere/c.txt")];

function openLive(events: Event[], handlers: Record<string, Handler> = {}) {
  const live = liveSession(sessionInfo(), handlers);
  for (const event of events) live.session.apply(event);
  render(Conversation, { session: live.session, onclose: vi.fn() });
  return live;
}

const answers = (live: Live) => live.called("answer_permission");
const allowOnce = (requestId: string) => ({ sessionId: "s1", requestId, answer: { answer: "allow_once", updated_input: null } });
const deny = (requestId: string, message: string | null) => ({ sessionId: "s1", requestId, answer: { answer: "deny", message } });

const panel = () => screen.getByTestId("batch-approval");
const rows = () => within(panel()).getAllByTestId("batch-row");
const rowOf = (requestId: string) => rows().find((r) => r.dataset.requestId === requestId)!;
const checkbox = (requestId: string) => within(rowOf(requestId)).getByTestId("batch-select") as HTMLInputElement;

describe("a batch waiting for approval", () => {
  it("shows its waiting calls together, and Allow all allows each once", async () => {
    const user = userEvent.setup();
    const live = openLive(threeReads().flatMap((r) => waiting(r)));
    const dialog = await screen.findByTestId("permission-dialog");
    expect(screen.getAllByTestId("batch-approval")).toHaveLength(1);
    // Not the single request's panel.
    expect(screen.queryByTestId("permission-body")).toBeNull();
    expect(within(dialog).getByTestId("batch-position").textContent?.trim()).toBe("3 calls of one batch");
    expect(rows().map((r) => [r.dataset.requestId, r.dataset.toolUseId])).toEqual([
      ["r1", "tu-r1"],
      ["r2", "tu-r2"],
      ["r3", "tu-r3"],
    ]);
    expect(rowOf("r1").textContent).toContain("Read /outside/a.txt");
    expect(rowOf("r1").textContent).toContain("/outside/a.txt is outside the project");
    expect(rows().map((r) => (within(r).getByTestId("batch-select") as HTMLInputElement).checked)).toEqual([true, true, true]);
    expect(screen.queryByTestId("batch-destructive")).toBeNull();
    expect(screen.queryByTestId("batch-destructive-note")).toBeNull();
    const allowAll = screen.getByTestId("batch-allow-all");
    expect(allowAll.textContent).toBe("Allow 3 once");

    await user.click(allowAll);
    await waitFor(() => expect(answers(live)).toHaveLength(3));
    expect(answers(live)).toEqual([allowOnce("r1"), allowOnce("r2"), allowOnce("r3")]);
    await waitFor(() => expect(screen.queryByTestId("permission-dialog")).toBeNull());
  });

  it("allows the selected calls and denies the others with the message", async () => {
    const user = userEvent.setup();
    const live = openLive(threeReads().flatMap((r) => waiting(r)));
    await screen.findByTestId("batch-approval");
    await user.click(checkbox("r2"));
    expect(checkbox("r2").checked).toBe(false);
    expect(screen.getByTestId("batch-allow-selected").textContent).toBe("Allow 2 selected once");
    await user.type(screen.getByTestId("batch-deny-message"), "not that file");
    const denyRest = screen.getByTestId("batch-deny-rest");
    expect(denyRest.textContent?.trim()).toBe("Allow 2, deny the other 1");

    await user.click(denyRest);
    await waitFor(() => expect(answers(live)).toHaveLength(3));
    expect(answers(live)).toEqual([allowOnce("r1"), allowOnce("r3"), deny("r2", "not that file")]);
    await waitFor(() => expect(screen.queryByTestId("permission-dialog")).toBeNull());
  });

  it("Allow selected leaves the unchecked call waiting, then alone in the single dialog", async () => {
    const user = userEvent.setup();
    const live = openLive(threeReads().flatMap((r) => waiting(r)));
    await screen.findByTestId("batch-approval");
    await user.click(checkbox("r3"));
    await user.click(screen.getByTestId("batch-allow-selected"));
    await waitFor(() => expect(answers(live)).toHaveLength(2));
    expect(answers(live)).toEqual([allowOnce("r1"), allowOnce("r2")]);
    await waitFor(() => expect(screen.queryByTestId("batch-approval")).toBeNull());
    expect(screen.getByTestId("permission-body").textContent).toContain("Read /elsewhere/c.txt");
    expect(screen.getByTestId("permission-position").textContent).toBe("1 of 1");
  });

  it("leaves a destructive call unchecked and out of Allow all, to be allowed on its own", async () => {
    const user = userEvent.setup();
    const rm = request({
      id: "r-rm",
      tool_name: "Bash",
      input: { command: "rm -rf build" },
      summary: "Bash rm -rf build",
      destructive: true,
      parts: [{ part: "rm -rf build", decision: "needs_approval", rule: null }],
      suggestions: ["Bash(rm -rf build)"],
    });
    const live = openLive([readRequest("r1", "/outside/a.txt"), rm, readRequest("r2", "/outside/b.txt")].flatMap((r) => waiting(r)));
    await screen.findByTestId("batch-approval");
    expect(rows().map((r) => r.dataset.requestId)).toEqual(["r1", "r-rm", "r2"]);
    expect(checkbox("r-rm").checked).toBe(false);
    expect([checkbox("r1").checked, checkbox("r2").checked]).toEqual([true, true]);
    // The badge is on the destructive call's row only.
    expect(screen.getAllByTestId("batch-destructive")).toHaveLength(1);
    expect(within(rowOf("r-rm")).getByTestId("batch-destructive").textContent?.trim()).toBe("destructive");
    expect(screen.getByTestId("batch-allow-all").textContent).toBe("Allow 2 once");
    expect(screen.getByTestId("batch-destructive-note").textContent).toBe("rm -rf build is not included: allow it on its own");

    await user.click(screen.getByTestId("batch-allow-all"));
    await waitFor(() => expect(answers(live)).toHaveLength(2));
    expect(answers(live)).toEqual([allowOnce("r1"), allowOnce("r2")]);
    // The destructive call still waits, shown alone with the single dialog's warning.
    await waitFor(() => expect(screen.queryByTestId("batch-approval")).toBeNull());
    expect(screen.getByTestId("permission-dialog").dataset.toolName).toBe("Bash");
    expect(screen.getByTestId("destructive-warning")).toBeTruthy();
    expect(screen.getByTestId("permission-command").textContent).toBe("rm -rf build");
  });

  it("shows each call's preview only when its row is opened", async () => {
    const user = userEvent.setup();
    const edit = request({
      id: "r-edit",
      tool_name: "Edit",
      input: { file_path: "/p/src/main.rs", old_string: "let x = 1;", new_string: "let x = 2;" },
      summary: "Edit /p/src/main.rs",
      preview: filePreview("/p/src/main.rs", "update", [mainHunk("let x = 2;")]),
    });
    const write = request({
      id: "r-write",
      tool_name: "Write",
      input: { file_path: "/p/new.py", content: "print('hi')\n" },
      preview: filePreview("/p/new.py", "create", [createHunk("print('hi')")]),
    });
    const bash = request({
      id: "r-bash",
      tool_name: "Bash",
      input: { command: "git status && make" },
      parts: [
        { part: "git status", decision: "read_only", rule: null },
        { part: "make", decision: "needs_approval", rule: null },
      ],
    });
    const fetch = request({ id: "r-fetch", tool_name: "WebFetch", input: { url: "https://example.com/docs" } });
    openLive([edit, write, bash, fetch].flatMap((r) => waiting(r)));
    await screen.findByTestId("batch-approval");
    expect(screen.queryAllByTestId("batch-preview")).toHaveLength(0);

    const toggle = (id: string) => within(rowOf(id)).getByTestId("batch-preview-toggle");
    await user.click(toggle("r-edit"));
    expect(toggle("r-edit").getAttribute("aria-expanded")).toBe("true");
    expect(screen.getAllByTestId("batch-preview")).toHaveLength(1);
    expect(within(rowOf("r-edit")).getByTestId("diff-view").textContent).toContain("let x = 2;");

    await user.click(toggle("r-bash"));
    const parts = within(rowOf("r-bash")).getAllByTestId("bash-part");
    expect(parts.map((p) => p.dataset.decision)).toEqual(["read_only", "needs_approval"]);
    await user.click(toggle("r-write"));
    expect(within(rowOf("r-write")).getByTestId("diff-view").textContent).toContain("print('hi')");
    await user.click(toggle("r-fetch"));
    expect(within(rowOf("r-fetch")).getByTestId("batch-url").textContent).toBe("https://example.com/docs");

    // Closing one leaves the others as they are.
    await user.click(toggle("r-edit"));
    expect(within(rowOf("r-edit")).queryByTestId("batch-preview")).toBeNull();
    expect(screen.getAllByTestId("batch-preview")).toHaveLength(3);
  });
});

describe("a rule for the batch", () => {
  const RULE = "Read(/outside/**)";
  const fourReads = () => [...threeReads(), readRequest("r4", "/elsewhere/d.txt")];

  it("asks the engine which calls the typed rule covers, and allows exactly those", async () => {
    const user = userEvent.setup();
    const live = openLive(fourReads().flatMap((r) => waiting(r)), {
      requests_covered_by: ({ rules }) => ((rules as string[])[0] === RULE ? ["r1", "r2"] : []),
    });
    await screen.findByTestId("batch-approval");
    const ruleBox = screen.getByTestId("batch-rule") as HTMLInputElement;
    // No call suggested a rule: the box starts empty, the engine is not asked, nothing is offered.
    expect(ruleBox.value).toBe("");
    expect(screen.getByTestId("batch-allow-rule")).toHaveProperty("disabled", true);
    expect(screen.queryByTestId("batch-covered")).toBeNull();

    await user.type(ruleBox, RULE);
    await waitFor(() => expect(screen.getAllByTestId("batch-covered")).toHaveLength(4));
    expect(live.called("requests_covered_by")).toEqual([{ sessionId: "s1", rules: [RULE] }]);
    expect(rows().map((r) => within(r).getByTestId("batch-covered").textContent?.trim())).toEqual(["covered", "covered", "not covered", "not covered"]);
    const allowRule = screen.getByTestId("batch-allow-rule");
    expect(allowRule.textContent?.trim()).toBe("Allow this rule: covers 2 of 4");
    expect(allowRule).toHaveProperty("disabled", false);

    await user.selectOptions(screen.getByTestId("batch-rule-scope"), "project_local");
    await user.click(allowRule);
    await waitFor(() => expect(answers(live)).toHaveLength(2));
    expect(answers(live)).toEqual([
      { sessionId: "s1", requestId: "r1", answer: { answer: "always_allow", rules: [RULE], scope: "project_local", updated_input: null } },
      allowOnce("r2"),
    ]);
    // The calls it did not cover keep waiting, still together.
    await waitFor(() => expect(rows().map((r) => r.dataset.requestId)).toEqual(["r3", "r4"]));
  });

  it("starts from the first suggestion and offers every distinct one", async () => {
    const user = userEvent.setup();
    const suggested = [
      readRequest("r1", "/outside/a.txt", { suggestions: [RULE] }),
      readRequest("r2", "/outside/b.txt", { suggestions: [RULE] }),
      readRequest("r3", "/elsewhere/c.txt", { suggestions: ["Read(/elsewhere/**)"] }),
    ];
    const live = openLive(suggested.flatMap((r) => waiting(r)), {
      requests_covered_by: ({ rules }) => ((rules as string[])[0] === RULE ? ["r1", "r2"] : ["r3"]),
    });
    await screen.findByTestId("batch-approval");
    const ruleBox = screen.getByTestId("batch-rule") as HTMLInputElement;
    expect(ruleBox.value).toBe(RULE);
    const select = screen.getByTestId("batch-rule-suggestions") as HTMLSelectElement;
    expect([...select.options].filter((o) => o.value).map((o) => o.value)).toEqual([RULE, "Read(/elsewhere/**)"]);
    await waitFor(() => expect(screen.getByTestId("batch-allow-rule").textContent?.trim()).toBe("Allow this rule: covers 2 of 3"));

    await user.selectOptions(select, "Read(/elsewhere/**)");
    expect(ruleBox.value).toBe("Read(/elsewhere/**)");
    await waitFor(() => expect(screen.getByTestId("batch-allow-rule").textContent?.trim()).toBe("Allow this rule: covers 1 of 3"));
    expect(live.called("requests_covered_by")).toEqual([
      { sessionId: "s1", rules: [RULE] },
      { sessionId: "s1", rules: ["Read(/elsewhere/**)"] },
    ]);
    expect(rows().map((r) => within(r).getByTestId("batch-covered").dataset.covered)).toEqual(["false", "false", "true"]);
  });

  it("shows the engine's error for an invalid rule and offers nothing to allow", async () => {
    const live = openLive(threeReads().flatMap((r) => waiting(r)), {
      requests_covered_by: ({ rules }) =>
        (rules as string[])[0] === "Read(" ? Promise.reject("invalid rule Read(: missing )") : ["r1"],
    });
    await screen.findByTestId("batch-approval");
    await fireEvent.input(screen.getByTestId("batch-rule"), { target: { value: "Read(" } });
    await waitFor(() => expect(screen.getByTestId("batch-rule-error").textContent).toBe("invalid rule Read(: missing )"));
    expect(screen.getByTestId("batch-allow-rule")).toHaveProperty("disabled", true);
    expect(screen.queryByTestId("batch-covered")).toBeNull();

    // Fixed, it is asked about again and the error goes.
    await fireEvent.input(screen.getByTestId("batch-rule"), { target: { value: "Read(/outside/a.txt)" } });
    await waitFor(() => expect(screen.queryByTestId("batch-rule-error")).toBeNull());
    expect(screen.getByTestId("batch-allow-rule")).toHaveProperty("disabled", false);
    expect(live.called("requests_covered_by")).toEqual([
      { sessionId: "s1", rules: ["Read("] },
      { sessionId: "s1", rules: ["Read(/outside/a.txt)"] },
    ]);
    expect(answers(live)).toEqual([]);
  });

  it("disables the button for a rule that covers none", async () => {
    openLive(threeReads().flatMap((r) => waiting(r)), { requests_covered_by: () => [] });
    await screen.findByTestId("batch-approval");
    await fireEvent.input(screen.getByTestId("batch-rule"), { target: { value: "Read(/nowhere/**)" } });
    await waitFor(() => expect(screen.getByTestId("batch-allow-rule").textContent?.trim()).toBe("Allow this rule: covers 0 of 3"));
    expect(screen.getByTestId("batch-allow-rule")).toHaveProperty("disabled", true);
  });
});

describe("what is not a batch", () => {
  it("a lone request still gets the single dialog", async () => {
    // Its batch has another call, which needs no approval.
    openLive([queued("tu-other", 1, true, "Read"), ...waiting(readRequest("r1", "/outside/a.txt"))]);
    const dialog = await screen.findByTestId("permission-dialog");
    expect(screen.queryByTestId("batch-approval")).toBeNull();
    expect(within(dialog).getByTestId("permission-position").textContent).toBe("1 of 1");
    expect(within(dialog).getByTestId("allow-once")).toBeTruthy();
  });

  it("requests of two different batches are not merged", async () => {
    openLive([...waiting(readRequest("r1", "/outside/a.txt"), 1), ...waiting(readRequest("r2", "/outside/b.txt"), 2)]);
    const dialog = await screen.findByTestId("permission-dialog");
    expect(screen.queryByTestId("batch-approval")).toBeNull();
    expect(within(dialog).getByTestId("permission-position").textContent).toBe("1 of 2");
  });

  it("shows the oldest request's batch only, and the next batch once it is answered", async () => {
    const user = userEvent.setup();
    const live = openLive([
      ...waiting(readRequest("a1", "/outside/a.txt"), 1),
      ...waiting(readRequest("b1", "/elsewhere/x.txt"), 2),
      ...waiting(readRequest("a2", "/outside/b.txt"), 1),
      ...waiting(readRequest("b2", "/elsewhere/y.txt"), 2),
    ]);
    await screen.findByTestId("batch-approval");
    expect(rows().map((r) => r.dataset.requestId)).toEqual(["a1", "a2"]);
    expect(screen.getByTestId("batch-position").textContent?.trim()).toBe("2 calls of one batch · 4 waiting");
    await user.click(screen.getByTestId("batch-allow-all"));
    await waitFor(() => expect(rows().map((r) => r.dataset.requestId)).toEqual(["b1", "b2"]));
    expect(answers(live)).toEqual([allowOnce("a1"), allowOnce("a2")]);
  });

  it("groups a sub-agent's requests with its own batch only, never with the main agent's", async () => {
    const user = userEvent.setup();
    const inner = (id: string, path: string) =>
      readRequest(id, path, { tool_use_id: `in-${id}`, agent_label: "Sub-agent: Find the tests", agent_call_id: "ag" });
    const s1 = inner("s1r", "/outside/s1.txt");
    const s2 = inner("s2r", "/outside/s2.txt");
    const live = openLive([
      // The Agent call and a main-line read share batch 1; the sub-agent numbers its own batch 1.
      queued("ag", 1, true, "Agent", "Agent find the tests"),
      { type: "tool_started", tool_use_id: "ag" },
      subagentStep("ag", "agent-1", queued(s1.tool_use_id, 1, true, "Read", s1.summary)),
      subagentStep("ag", "agent-1", queued(s2.tool_use_id, 1, true, "Read", s2.summary)),
      ...waiting(readRequest("m1", "/outside/main.txt"), 1),
      { type: "permission_requested", request: s1 },
      { type: "permission_requested", request: s2 },
    ]);
    // The main agent's request is alone in its batch: the single dialog.
    const dialog = await screen.findByTestId("permission-dialog");
    expect(screen.queryByTestId("batch-approval")).toBeNull();
    expect(within(dialog).getByTestId("permission-position").textContent).toBe("1 of 3");
    await user.click(within(dialog).getByTestId("allow-once"));
    // Then the sub-agent's two, together, with the sub-agent named.
    await waitFor(() => expect(rows().map((r) => r.dataset.requestId)).toEqual(["s1r", "s2r"]));
    expect(screen.getByTestId("agent-label").textContent).toBe("Sub-agent: Find the tests");
    expect(answers(live)).toEqual([allowOnce("m1")]);
  });
});

describe("a batch as calls come and go", () => {
  it("takes in a request of its batch arriving later, and lets go of one answered elsewhere", async () => {
    const user = userEvent.setup();
    const [r1, r2, r3] = threeReads();
    const live = openLive([...waiting(r1!), ...waiting(r2!)]);
    await screen.findByTestId("batch-approval");
    await user.click(checkbox("r2"));
    await user.type(screen.getByTestId("batch-deny-message"), "why");

    for (const e of waiting(r3!)) live.session.apply(e);
    await waitFor(() => expect(rows().map((r) => r.dataset.requestId)).toEqual(["r1", "r2", "r3"]));
    // The panel stayed: the choices and the message made are kept, the newcomer starts checked.
    expect([checkbox("r1").checked, checkbox("r2").checked, checkbox("r3").checked]).toEqual([true, false, true]);
    expect((screen.getByTestId("batch-deny-message") as HTMLInputElement).value).toBe("why");
    expect(screen.getByTestId("batch-allow-all").textContent).toBe("Allow 3 once");

    // A call that ended (cancelled) leaves the queue, and the panel.
    live.session.apply(completed("tu-r1", { cancelled: true, is_error: true }));
    await waitFor(() => expect(rows().map((r) => r.dataset.requestId)).toEqual(["r2", "r3"]));
    live.session.apply(completed("tu-r3", { cancelled: true, is_error: true }));
    await waitFor(() => expect(screen.queryByTestId("batch-approval")).toBeNull());
    expect(screen.getByTestId("permission-body").textContent).toContain("Read /outside/b.txt");
    expect(answers(live)).toEqual([]);
  });
});

describe("the batch from the keyboard", () => {
  it("takes the focus; Y, Enter and A answer nothing; Escape denies the whole batch", async () => {
    const user = userEvent.setup();
    const live = openLive(threeReads().flatMap((r) => waiting(r)));
    const dialog = await screen.findByTestId("permission-dialog");
    await waitFor(() => expect(document.activeElement).toBe(dialog));
    await pastArmDelay();
    await user.keyboard("y");
    await user.keyboard("{Enter}");
    await user.keyboard("a");
    await user.keyboard("n");
    expect(answers(live)).toEqual([]);

    await user.keyboard("{Escape}");
    await waitFor(() => expect(answers(live)).toHaveLength(3));
    expect(answers(live)).toEqual([deny("r1", null), deny("r2", null), deny("r3", null)]);
    expect(live.called("abort_turn")).toEqual([]);
  });

  it("Tab goes through the rows' checkboxes before the answers", async () => {
    const user = userEvent.setup();
    openLive(threeReads().flatMap((r) => waiting(r)));
    const dialog = await screen.findByTestId("permission-dialog");
    await waitFor(() => expect(document.activeElement).toBe(dialog));
    await user.tab();
    expect(document.activeElement).toBe(checkbox("r1"));
    await user.tab();
    expect(document.activeElement).toBe(within(rowOf("r1")).getByTestId("batch-preview-toggle"));
    await user.tab();
    expect(document.activeElement).toBe(checkbox("r2"));
    await user.tab();
    await user.tab();
    await user.tab();
    await user.tab();
    expect(document.activeElement).toBe(screen.getByTestId("batch-allow-all"));
  });
});

describe("batchKey", () => {
  const tools = (events: Event[]) => reduceAll(initialState(), events, 0).tools;

  it("names the engine batch of the request's call, per agent", () => {
    const r = readRequest("r1", "/outside/a.txt");
    const inner = readRequest("r2", "/outside/b.txt", { tool_use_id: "in-1", agent_label: "Sub-agent: x", agent_call_id: "ag" });
    const t = tools([
      queued("tu-r1", 4, true, "Read"),
      queued("ag", 4, true, "Agent"),
      subagentStep("ag", "agent-1", queued("in-1", 4, true, "Read")),
    ]);
    expect(batchKey(t, r)).toBe("#4");
    expect(batchKey(t, inner)).toBe("ag#4");
  });

  it("groups no plan, no network request, and no call the conversation does not hold", () => {
    const plan = planRequest();
    const network = request({
      id: "r-net",
      tool_name: "Network",
      tool_use_id: "tu-bash",
      network: { host: "example.com", port: 443, command: "curl https://example.com", session_id: "s1" },
    });
    const t = tools([queued(plan.tool_use_id, 1, true, "ExitPlanMode"), queued("tu-bash", 1, true, "Bash")]);
    expect(batchKey(t, plan)).toBeNull();
    expect(batchKey(t, network)).toBeNull();
    expect(batchKey(t, readRequest("r9", "/x"))).toBeNull();
    expect(firstGroup(t, [plan, network]).requests).toEqual([plan]);
  });
});
