import { beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import { mockIPC, mockWindows } from "@tauri-apps/api/mocks";
import PermissionDialog from "../lib/components/PermissionDialog.svelte";
import type { PermissionRequest } from "../bindings/PermissionRequest";
import type { PermissionPreview } from "../bindings/PermissionPreview";
import {
  bashRequest,
  createHunk,
  editRequest,
  filePreview,
  mainHunk,
  planRequest,
  request,
  sedFile,
  sedRequest,
  writeRequest,
} from "./fixtures";

type Call = { cmd: string; args: Record<string, unknown> };
let calls: Call[];
/** The engine's preview for an edited input (preview_permission_edit); no preview unless a test
 *  gives one. */
let previewEdit: (args: Record<string, unknown>) => PermissionPreview | null | Promise<PermissionPreview | null>;

beforeEach(() => {
  calls = [];
  previewEdit = () => null;
  mockWindows("main");
  mockIPC((cmd, args) => {
    calls.push({ cmd, args: args as Record<string, unknown> });
    if (cmd === "preview_permission_edit") return previewEdit(args as Record<string, unknown>);
    return null;
  });
});

function answers() {
  return calls.filter((c) => c.cmd === "answer_permission");
}

function previewCalls() {
  return calls.filter((c) => c.cmd === "preview_permission_edit").map((c) => c.args);
}

/** Longer than the pause the dialog waits for before asking the engine about an edit. */
const pastPreviewDelay = () => new Promise((r) => setTimeout(r, 300));
/** Waiting for the engine's preview of an edit: the pause comes first, so give a busy machine time. */
const previewed = { timeout: 3000 };

function setup(requests: PermissionRequest[]) {
  const onanswered = vi.fn();
  const result = render(PermissionDialog, { sessionId: "s1", requests, onanswered, armDelayMs: 0 });
  return { ...result, onanswered };
}

/** Lets the dialog's shortcut arming timer (0 ms in tests) fire. */
const armed = () => new Promise((r) => setTimeout(r, 5));

describe("PermissionDialog: Bash", () => {
  it("shows the full command and every part with its verdict and deciding rule", () => {
    setup([bashRequest()]);
    const dialog = screen.getByTestId("permission-dialog");
    expect(dialog.dataset.toolName).toBe("Bash");
    expect(screen.getByTestId("permission-command").textContent).toBe("git status && rm -rf build");
    const parts = within(screen.getByTestId("bash-parts")).getAllByTestId("bash-part");
    expect(parts.map((p) => p.dataset.decision)).toEqual(["read_only", "needs_approval", "denied"]);
    expect(parts[2]!.textContent).toContain("Bash(curl *)");
    expect(parts[2]!.textContent).toContain("projectSettings");
  });

  it("shows a sed -i simulation as a per-file diff", () => {
    setup([sedRequest()]);
    const sed = screen.getByTestId("sed-preview");
    expect(within(sed).getByTestId("sed-file").textContent).toBe("src/a.rs");
    const rows = sed.querySelectorAll("[data-tag]");
    const tags = [...rows].map((r) => (r as HTMLElement).dataset.tag);
    expect(tags).toEqual(["context", "delete", "insert", "context"]);
    expect(sed.textContent).toContain("bar();");
  });

  it("sends the edited command as updated_input", async () => {
    const user = userEvent.setup();
    setup([bashRequest()]);
    await user.click(screen.getByTestId("edit-input"));
    const box = screen.getByTestId("edited-text") as HTMLTextAreaElement;
    expect(box.value).toBe("git status && rm -rf build");
    await user.clear(box);
    await user.type(box, "git status");
    // Both stay visible: what was asked, and what will run instead.
    expect(screen.getByTestId("permission-command").textContent).toBe("git status && rm -rf build");
    expect(screen.getByTestId("permission-edited-command").textContent).toBe("git status");
    // The engine is asked about the edited command; it has no preview, and neither had the proposal.
    await waitFor(
      () => expect(previewCalls().at(-1)).toEqual({ sessionId: "s1", requestId: "r-bash", input: { command: "git status", description: "Clean" } }),
      previewed,
    );
    await pastPreviewDelay();
    expect(screen.queryByTestId("no-edit-preview")).toBeNull();
    await user.click(screen.getByTestId("allow-once"));
    await waitFor(() => expect(answers()).toHaveLength(1));
    expect(answers()[0]!.args).toEqual({
      sessionId: "s1",
      requestId: "r-bash",
      answer: { answer: "allow_once", updated_input: { command: "git status", description: "Clean" } },
    });
  });
});

describe("PermissionDialog: a sed -i command edited", () => {
  it("shows the engine's simulation of the edited command, or says it has none", async () => {
    const user = userEvent.setup();
    previewEdit = () => ({ kind: "sed_edit", files: [sedFile("src/a.rs", "foo();", "baz();")] });
    setup([sedRequest()]);
    await user.click(screen.getByTestId("edit-input"));
    const box = screen.getByTestId("edited-text") as HTMLTextAreaElement;
    await fireEvent.input(box, { target: { value: "sed -i 's/foo/baz/' src/a.rs" } });
    await waitFor(() => expect(screen.getByTestId("sed-preview").textContent).toContain("baz();"), previewed);
    expect(screen.getByTestId("sed-preview").textContent).not.toContain("bar();");
    expect(previewCalls()).toEqual([{ sessionId: "s1", requestId: "r-sed", input: { command: "sed -i 's/foo/baz/' src/a.rs" } }]);

    previewEdit = () => null;
    await fireEvent.input(box, { target: { value: "cat src/a.rs" } });
    await waitFor(() => expect(screen.getByTestId("no-edit-preview").textContent).toContain("No preview for the edited command"), previewed);
    expect(screen.queryByTestId("sed-preview")).toBeNull();
  });
});

describe("PermissionDialog: the sandbox", () => {
  it("says why a command would run without the sandbox, and that a sandboxed one has no network", () => {
    const { unmount } = setup([
      {
        ...bashRequest(),
        sandbox: { state: "unsandboxed", reason: "commands cannot be sandboxed here: no Landlock", needs_approval: true },
      },
    ]);
    const note = screen.getByTestId("permission-sandbox");
    expect([note.textContent, note.dataset.sandboxed]).toEqual([
      "Runs without the sandbox: commands cannot be sandboxed here: no Landlock.",
      "false",
    ]);
    unmount();
    setup([{ ...bashRequest(), sandbox: { state: "sandboxed", network: false } }]);
    expect(screen.getByTestId("permission-sandbox").textContent).toContain("has no network");
  });
});

describe("PermissionDialog: destructive commands", () => {
  it("says so in words and colour, and offers only the exact command with the engine's reason", () => {
    setup([
      request({
        id: "r-rm",
        tool_name: "Bash",
        input: { command: "rm -rf build" },
        summary: "Bash rm -rf build",
        destructive: true,
        suggestions: ["Bash(rm -rf build)"],
        suggestion_note: "this command may destroy data, so only the exact command is offered",
      }),
    ]);
    const warning = screen.getByTestId("destructive-warning");
    expect(warning.textContent).toContain("destructive");
    expect(warning.textContent).toContain("cannot be recovered");
    expect(screen.getByTestId("suggestion-note").textContent).toBe(
      "this command may destroy data, so only the exact command is offered",
    );
    expect((screen.getAllByRole("textbox").map((t) => (t as HTMLInputElement).value))).toContain("Bash(rm -rf build)");
  });

  it("shows no warning for an ordinary command", () => {
    setup([bashRequest()]);
    expect(screen.queryByTestId("destructive-warning")).toBeNull();
    expect(screen.queryByTestId("suggestion-note")).toBeNull();
  });
});

describe("PermissionDialog: Edit and Write", () => {
  it("shows the Edit diff, toggles to side by side, and allows once without changes", async () => {
    const user = userEvent.setup();
    const { onanswered } = setup([editRequest()]);
    const diff = screen.getByTestId("permission-diff");
    const tags = () => [...diff.querySelectorAll("[data-tag]")].map((r) => (r as HTMLElement).dataset.tag);
    expect(tags()).toEqual(["context", "delete", "insert", "context", "context"]);
    expect(diff.querySelector(".hljs-keyword")?.textContent).toBe("fn"); // highlighted as Rust
    await user.click(within(diff).getByTestId("diff-split"));
    expect(within(diff).getByTestId("diff-view").dataset.view).toBe("split");
    // one paired row: old line 2 on the left, new line 2 on the right
    expect(tags()).toEqual(["context", "context", "delete", "insert", "context", "context", "context", "context"]);
    await user.click(screen.getByTestId("allow-once"));
    await waitFor(() => expect(onanswered).toHaveBeenCalledWith("r-edit"));
    expect(answers()[0]!.args.answer).toEqual({ answer: "allow_once", updated_input: null });
  });

  it("shows the engine's diff for the edited new_string and sends it in updated_input", async () => {
    const user = userEvent.setup();
    // The engine's answer, as its forgiving matching computed it (here: the edit lands on line 2).
    previewEdit = () => filePreview("/p/src/main.rs", "update", [mainHunk("let x = 99;")]);
    setup([editRequest()]);
    await user.click(screen.getByTestId("edit-input"));
    const box = screen.getByTestId("edited-text") as HTMLTextAreaElement;
    expect(box.value).toBe("let x = 2;");
    expect(previewCalls()).toEqual([]); // nothing edited yet: the request's own preview
    await user.clear(box);
    await user.type(box, "let x = 99;");
    const diff = screen.getByTestId("permission-diff");
    await waitFor(() => expect(diff.textContent).toContain("let x = 99;"), previewed);
    expect(diff.textContent).not.toContain("let x = 2;");
    expect(screen.getByTestId("permission-preview").dataset.stale).toBe("false");
    expect(previewCalls().at(-1)).toEqual({
      sessionId: "s1",
      requestId: "r-edit",
      input: { file_path: "/p/src/main.rs", old_string: "let x = 1;", new_string: "let x = 99;" },
    });
    await user.click(screen.getByTestId("allow-once"));
    await waitFor(() => expect(answers()).toHaveLength(1));
    expect(answers()[0]!.args.answer).toEqual({
      answer: "allow_once",
      updated_input: { file_path: "/p/src/main.rs", old_string: "let x = 1;", new_string: "let x = 99;" },
    });
  });

  it("marks a Write that creates a file as new and edits its content", async () => {
    const user = userEvent.setup();
    previewEdit = () => filePreview("/p/new.py", "create", [createHunk("print('bye')")], "", "print('bye')");
    setup([writeRequest()]);
    expect(screen.getByTestId("new-file-badge")).toBeTruthy();
    await user.click(screen.getByTestId("edit-input"));
    const box = screen.getByTestId("edited-text") as HTMLTextAreaElement;
    await user.clear(box);
    await user.type(box, "print('bye')");
    await waitFor(() => expect(screen.getByTestId("permission-diff").textContent).toContain("print('bye')"), previewed);
    await user.click(screen.getByTestId("allow-once"));
    await waitFor(() => expect(answers()).toHaveLength(1));
    expect(answers()[0]!.args.answer).toMatchObject({ updated_input: { file_path: "/p/new.py", content: "print('bye')" } });
  });
});

describe("PermissionDialog: previews of an edited input", () => {
  it("asks once typing pauses, and shows only the answer about the latest text", async () => {
    const user = userEvent.setup();
    const held: { input: Record<string, unknown>; answer: (p: PermissionPreview | null) => void }[] = [];
    previewEdit = (args) => new Promise((answer) => held.push({ input: args.input as Record<string, unknown>, answer }));
    setup([editRequest()]);
    await user.click(screen.getByTestId("edit-input"));
    const box = screen.getByTestId("edited-text") as HTMLTextAreaElement;
    // Two changes within the pause: one question, about the second.
    await fireEvent.input(box, { target: { value: "let x = 3;" } });
    await fireEvent.input(box, { target: { value: "let x = 4;" } });
    await waitFor(() => expect(held).toHaveLength(1), previewed);
    await pastPreviewDelay();
    expect(held.map((h) => h.input.new_string)).toEqual(["let x = 4;"]);
    // Until the engine answers, the proposal's diff stays, marked stale.
    expect(screen.getByTestId("permission-preview").dataset.stale).toBe("true");
    expect(screen.getByTestId("permission-diff").textContent).toContain("let x = 2;");

    await fireEvent.input(box, { target: { value: "let x = 5;" } });
    await waitFor(() => expect(held).toHaveLength(2), previewed);
    held[1]!.answer(filePreview("/p/src/main.rs", "update", [mainHunk("let x = 5;")]));
    const diff = screen.getByTestId("permission-diff");
    await waitFor(() => expect(diff.textContent).toContain("let x = 5;"), previewed);
    // The answer about the older text arrives late: it is dropped.
    held[0]!.answer(filePreview("/p/src/main.rs", "update", [mainHunk("let x = 4;")]));
    await pastPreviewDelay();
    expect(diff.textContent).toContain("let x = 5;");
    expect(diff.textContent).not.toContain("let x = 4;");
    expect(screen.getByTestId("permission-preview").dataset.stale).toBe("false");
  });

  it("says so when the engine has no preview for the edited input, and still allows it", async () => {
    const user = userEvent.setup();
    setup([editRequest()]);
    await user.click(screen.getByTestId("edit-input"));
    await fireEvent.input(screen.getByTestId("edited-text"), { target: { value: "let x = 1;" } });
    const note = await screen.findByTestId("no-edit-preview", {}, previewed);
    expect(note.textContent).toContain("No preview for the edited input");
    expect(note.textContent).toContain("the old text is no longer in the file");
    expect(screen.getByTestId("permission-diff").contains(note)).toBe(true);
    expect(screen.queryByTestId("diff-view")).toBeNull();
    await user.click(screen.getByTestId("allow-once"));
    await waitFor(() => expect(answers()).toHaveLength(1));
    expect(answers()[0]!.args.answer).toMatchObject({ updated_input: { new_string: "let x = 1;" } });
  });

  it("shows a failed preview quietly and goes back to the proposal's diff when the edit is undone", async () => {
    const user = userEvent.setup();
    previewEdit = () => {
      throw new Error("no permission request r-edit is waiting for an answer");
    };
    setup([editRequest()]);
    await user.click(screen.getByTestId("edit-input"));
    const box = screen.getByTestId("edited-text") as HTMLTextAreaElement;
    await fireEvent.input(box, { target: { value: "let x = 7;" } });
    const failure = await screen.findByTestId("edit-preview-failure", {}, previewed);
    expect(failure.textContent).toBe("Could not preview the edited input: no permission request r-edit is waiting for an answer");
    expect(screen.queryByRole("alert")).toBeNull();
    await fireEvent.input(box, { target: { value: "let x = 2;" } }); // the proposal again
    await waitFor(() => expect(screen.queryByTestId("edit-preview-failure")).toBeNull(), previewed);
    expect(screen.getByTestId("permission-diff").textContent).toContain("let x = 2;");
    expect(previewCalls()).toHaveLength(1);
  });
});

describe("PermissionDialog: a sandboxed command's network request", () => {
  const networkRequest = () =>
    request({
      id: "n1",
      tool_name: "Network",
      input: { host: "pypi.org", port: 443, command: "pip install requests" },
      summary: "Network request outside of sandbox: pypi.org:443",
      suggestions: ["WebFetch(domain:pypi.org)"],
      network: { host: "pypi.org", port: 443, command: "pip install requests", session_id: "s1" },
    });

  it("shows the host, the port and the command, and allows once", async () => {
    const user = userEvent.setup();
    setup([networkRequest()]);
    expect(screen.getByTestId("permission-network-host").textContent).toBe("pypi.org");
    expect(screen.getByTestId("permission-network").textContent).toContain("443");
    expect(screen.getByTestId("permission-command").textContent).toBe("pip install requests");
    expect(screen.queryByTestId("permission-args")).toBeNull();
    await user.click(screen.getByTestId("allow-once"));
    await waitFor(() => expect(answers()).toHaveLength(1));
    expect(answers()[0]!.args.answer).toEqual({ answer: "allow_once", updated_input: null });
  });

  it("always allows the host with the suggested rule", async () => {
    const user = userEvent.setup();
    setup([networkRequest()]);
    await user.click(screen.getByTestId("always-allow"));
    await waitFor(() => expect(answers()).toHaveLength(1));
    expect(answers()[0]!.args.answer).toEqual({
      answer: "always_allow",
      rules: ["WebFetch(domain:pypi.org)"],
      scope: "session",
      updated_input: null,
    });
  });
});

describe("PermissionDialog: answers", () => {
  it("always-allow sends the rules as edited (one removed, one changed) and the chosen scope", async () => {
    const user = userEvent.setup();
    setup([bashRequest()]);
    const inputs = screen.getAllByTestId("rule-suggestion") as HTMLInputElement[];
    expect(inputs.map((i) => i.value)).toEqual(["Bash(rm -rf build)", "Bash(git status:*)"]);
    await user.click(screen.getAllByTestId("rule-remove")[0]!);
    const remaining = screen.getByTestId("rule-suggestion") as HTMLInputElement;
    await user.clear(remaining);
    await user.type(remaining, "Bash(git *)");
    await user.selectOptions(screen.getByTestId("rule-scope"), "project_local");
    await user.click(screen.getByTestId("always-allow"));
    await waitFor(() => expect(answers()).toHaveLength(1));
    expect(answers()[0]!.args.answer).toEqual({
      answer: "always_allow",
      rules: ["Bash(git *)"],
      scope: "project_local",
      updated_input: null,
    });
  });

  it("deny sends the optional message", async () => {
    const user = userEvent.setup();
    setup([bashRequest()]);
    await user.type(screen.getByTestId("deny-message"), "use cargo clean instead");
    await user.click(screen.getByTestId("deny"));
    await waitFor(() => expect(answers()).toHaveLength(1));
    expect(answers()[0]!.args.answer).toEqual({ answer: "deny", message: "use cargo clean instead" });
  });

  it("deny without a message sends null", async () => {
    const user = userEvent.setup();
    setup([bashRequest()]);
    await user.click(screen.getByTestId("deny"));
    await waitFor(() => expect(answers()).toHaveLength(1));
    expect(answers()[0]!.args.answer).toEqual({ answer: "deny", message: null });
  });

  it("shows other tools' target and arguments in full", () => {
    setup([request({ id: "w", tool_name: "WebFetch", input: { url: "https://docs.rs/x", prompt: "summarise" } })]);
    expect(screen.getByTestId("permission-url").textContent).toBe("https://docs.rs/x");
    expect(screen.getByTestId("permission-args").textContent).toContain('"prompt": "summarise"');
    expect(screen.queryByTestId("edit-input")).toBeNull();
  });
});

describe("PermissionDialog: keyboard", () => {
  it("Y allows once, A always allows, N and Escape deny", async () => {
    for (const [key, expected] of [
      ["y", "allow_once"],
      ["{Enter}", "allow_once"],
      ["a", "always_allow"],
      ["n", "deny"],
      ["{Escape}", "deny"],
    ] as const) {
      calls = [];
      const user = userEvent.setup();
      const { unmount } = setup([bashRequest()]);
      await armed();
      await user.keyboard(key);
      await waitFor(() => expect(answers()).toHaveLength(1));
      expect((answers()[0]!.args.answer as { answer: string }).answer).toBe(expected);
      unmount();
    }
  });

  it("ignores shortcuts while typing in a text field", async () => {
    const user = userEvent.setup();
    setup([bashRequest()]);
    await armed();
    await user.type(screen.getByTestId("deny-message"), "nay");
    await fireEvent.keyDown(screen.getByTestId("deny-message"), { key: "Escape" });
    await user.click(screen.getByTestId("edit-input"));
    await user.type(screen.getByTestId("edited-text"), "y");
    await armed();
    expect(answers()).toHaveLength(0);
    expect((screen.getByTestId("deny-message") as HTMLInputElement).value).toBe("nay");
  });

  it("ignores shortcuts before the request has been on screen for the arm delay", async () => {
    render(PermissionDialog, { sessionId: "s1", requests: [bashRequest()], onanswered: vi.fn(), armDelayMs: 10_000 });
    await fireEvent.keyDown(screen.getByTestId("permission-dialog"), { key: "y" });
    await armed();
    expect(answers()).toHaveLength(0);
  });

  it("takes the focus when it appears, and ignores keys pressed outside it", async () => {
    const outside = document.createElement("button");
    document.body.append(outside);
    setup([bashRequest()]);
    expect(document.activeElement).toBe(screen.getByTestId("permission-dialog"));
    await armed();
    await fireEvent.keyDown(outside, { key: "y" });
    await fireEvent.keyDown(window, { key: "y" });
    await armed();
    expect(answers()).toHaveLength(0);
    outside.remove();
  });

  it("does not take the focus while its screen is hidden", () => {
    render(PermissionDialog, { sessionId: "s1", requests: [bashRequest()], onanswered: vi.fn(), active: false });
    expect(document.activeElement).not.toBe(screen.getByTestId("permission-dialog"));
  });
});

describe("PermissionDialog: a plan to approve (ExitPlanMode)", () => {
  it("shows the plan as sanitised Markdown with Approve and Keep planning, and no rule editor", () => {
    setup([planRequest()]);
    const plan = screen.getByTestId("plan");
    expect(plan.querySelector("h2")?.textContent).toBe("Steps");
    expect([...plan.querySelectorAll("ol li")].map((li) => li.textContent)).toEqual(["Change src/a.rs", "Run the tests"]);
    expect(plan.querySelector("code")?.textContent).toBe("src/a.rs");
    expect(plan.querySelector("script")).toBeNull();
    expect(screen.queryByTestId("permission-args")).toBeNull(); // no escaped JSON
    expect(screen.queryByTestId("rule-suggestion")).toBeNull();
    expect(screen.queryByTestId("rule-add")).toBeNull();
    expect(screen.queryByTestId("always-allow")).toBeNull();
    expect(screen.getByTestId("plan-approve").textContent).toContain("Approve");
    expect(screen.getByTestId("plan-keep-planning").textContent).toContain("Keep planning");
  });

  it("Approve allows the call as proposed", async () => {
    const user = userEvent.setup();
    const { onanswered } = setup([planRequest()]);
    await user.click(screen.getByTestId("plan-approve"));
    await waitFor(() => expect(onanswered).toHaveBeenCalledWith("r-plan"));
    expect(answers()[0]!.args).toEqual({ sessionId: "s1", requestId: "r-plan", answer: { answer: "allow_once", updated_input: null } });
  });

  it("Keep planning denies with the feedback for the model", async () => {
    const user = userEvent.setup();
    setup([planRequest()]);
    await user.type(screen.getByTestId("plan-feedback"), "also update the docs");
    await user.click(screen.getByTestId("plan-keep-planning"));
    await waitFor(() => expect(answers()).toHaveLength(1));
    expect(answers()[0]!.args.answer).toEqual({ answer: "deny", message: "also update the docs" });
  });

  it("Y and Enter approve, N and Escape keep planning, A does nothing", async () => {
    for (const [key, expected] of [
      ["y", "allow_once"],
      ["{Enter}", "allow_once"],
      ["n", "deny"],
      ["{Escape}", "deny"],
    ] as const) {
      calls = [];
      const user = userEvent.setup();
      const { unmount } = setup([planRequest()]);
      await armed();
      await user.keyboard("a");
      await armed();
      expect(answers()).toHaveLength(0);
      await user.keyboard(key);
      await waitFor(() => expect(answers()).toHaveLength(1));
      expect((answers()[0]!.args.answer as { answer: string }).answer).toBe(expected);
      unmount();
    }
  });
});

describe("PermissionDialog: size", () => {
  it("takes at most half the window; its body scrolls while the answers stay in view", () => {
    setup([editRequest()]);
    const dialog = screen.getByTestId("permission-dialog");
    expect(getComputedStyle(dialog).maxHeight).toBe("50vh");
    const body = screen.getByTestId("permission-body");
    expect(getComputedStyle(body).overflow).toBe("auto");
    expect(body.contains(screen.getByTestId("permission-diff"))).toBe(true);
    expect(body.contains(screen.getByTestId("allow-once"))).toBe(false);
  });
});

describe("PermissionDialog: queue", () => {
  it("shows the position and sub-agent label, and moves to the next request after an answer", async () => {
    const user = userEvent.setup();
    const sub = { ...editRequest(), agent_label: "explorer #2" };
    const requests = [bashRequest(), sub];
    const { onanswered, rerender } = setup(requests);
    expect(screen.getByTestId("permission-position").textContent).toBe("1 of 2");
    expect(screen.queryByTestId("agent-label")).toBeNull();
    await user.type(screen.getByTestId("deny-message"), "left over");
    await user.click(screen.getByTestId("deny"));
    await waitFor(() => expect(onanswered).toHaveBeenCalledWith("r-bash"));
    // The owner drops the answered request; the next one shows with fresh state.
    await rerender({ requests: [sub] });
    expect(screen.getByTestId("permission-dialog").dataset.toolName).toBe("Edit");
    expect(screen.getByTestId("permission-position").textContent).toBe("1 of 1");
    expect(screen.getByTestId("agent-label").textContent).toBe("explorer #2");
    expect((screen.getByTestId("deny-message") as HTMLInputElement).value).toBe("");
    await user.click(screen.getByTestId("allow-once"));
    await waitFor(() => expect(answers()).toHaveLength(2));
    expect(answers()[1]!.args.requestId).toBe("r-edit");
  });

  it("renders nothing when no request is pending", () => {
    setup([]);
    expect(screen.queryByTestId("permission-dialog")).toBeNull();
  });

  it("keeps the request and shows the failure when the answer cannot be delivered", async () => {
    mockIPC(() => {
      throw new Error("session gone");
    });
    const user = userEvent.setup();
    const { onanswered } = setup([bashRequest()]);
    await user.click(screen.getByTestId("allow-once"));
    await waitFor(() => expect(screen.getByRole("alert").textContent).toContain("session gone"));
    expect(onanswered).not.toHaveBeenCalled();
  });
});
