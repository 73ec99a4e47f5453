// Settings → Hooks: adding, editing, removing and testing hooks, each write naming its file and the
// hooks read again after it.
import { describe, expect, it, vi } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import SettingsPanel from "../lib/components/SettingsPanel.svelte";
import type { HookTestResult } from "../bindings/HookTestResult";
import { appState } from "./live";
import { LOCAL_FILE, mockSettings, PROJECT, SHARED_FILE } from "./settingsFixtures";

function renderPanel() {
  render(SettingsPanel, { app: appState(), onchanged: vi.fn(), onclose: vi.fn(), projectPath: PROJECT, sessionId: null });
}

const row = (event: string) => {
  const found = screen.getAllByTestId("hook-row").find((r) => r.dataset.event === event);
  if (!found) throw new Error(`no ${event} hook`);
  return found;
};

const blocked: HookTestResult = {
  input: '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}',
  exit_code: 2,
  stdout: "",
  stderr: "curl is not allowed",
  timed_out: false,
  effect: "The tool call would be blocked; the model is told: curl is not allowed",
};

describe("Settings → Hooks", () => {
  it("adds a PreToolUse hook on Bash to the local settings, says where, and reads the hooks again", async () => {
    const ipc = mockSettings({ add_hook: () => LOCAL_FILE });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("hook-row");
    const loads = ipc.called("get_project_settings").length;

    await user.click(screen.getByTestId("hook-add"));
    const form = screen.getByTestId("hook-form");
    expect((within(form).getByTestId("hook-form-event") as HTMLSelectElement).value).toBe("PreToolUse");
    expect((within(form).getByTestId("hook-form-source") as HTMLSelectElement).value).toBe("localSettings");
    await user.type(within(form).getByTestId("hook-form-matcher"), "Bash");
    await user.type(within(form).getByTestId("hook-form-command"), "~/bin/no-curl");
    await user.click(within(form).getByTestId("hook-form-save"));

    await waitFor(() =>
      expect(ipc.called("add_hook")).toEqual([
        { projectPath: PROJECT, source: "localSettings", hook: { event: "PreToolUse", matcher: "Bash", command: "~/bin/no-curl", timeout_secs: null } },
      ]),
    );
    expect((await screen.findByTestId("hook-written")).textContent).toBe(`Saved to ${LOCAL_FILE}`);
    await waitFor(() => expect(ipc.called("get_project_settings").length).toBe(loads + 1));
    expect(screen.queryByTestId("hook-form")).toBeNull();
  });

  it("offers a matcher only for tool events and sends a timeout as a number", async () => {
    const ipc = mockSettings({ add_hook: () => SHARED_FILE });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("hook-row");
    await user.click(screen.getByTestId("hook-add"));
    await user.selectOptions(screen.getByTestId("hook-form-event"), "Stop");
    expect(screen.queryByTestId("hook-form-matcher")).toBeNull();
    await user.type(screen.getByTestId("hook-form-command"), "make lint");
    await user.type(screen.getByTestId("hook-form-timeout"), "15");
    await user.selectOptions(screen.getByTestId("hook-form-source"), "projectSettings");
    await user.click(screen.getByTestId("hook-form-save"));
    await waitFor(() =>
      expect(ipc.called("add_hook")).toEqual([
        { projectPath: PROJECT, source: "projectSettings", hook: { event: "Stop", matcher: "", command: "make lint", timeout_secs: 15 } },
      ]),
    );
    expect((await screen.findByTestId("hook-written")).textContent).toBe(`Saved to ${SHARED_FILE}`);
  });

  it("edits a hook in its own file: the old one removed, the new one added", async () => {
    const ipc = mockSettings({ remove_hook: () => SHARED_FILE, add_hook: () => SHARED_FILE });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("hook-row");
    await user.click(within(row("PreToolUse")).getByTestId("hook-edit"));
    const form = screen.getByTestId("hook-form");
    const command = within(form).getByTestId("hook-form-command") as HTMLInputElement;
    expect(command.value).toBe("~/bin/audit-command --strict");
    expect((within(form).getByTestId("hook-form-matcher") as HTMLInputElement).value).toBe("Bash");
    expect((within(form).getByTestId("hook-form-timeout") as HTMLInputElement).value).toBe("60");
    const source = within(form).getByTestId("hook-form-source") as HTMLSelectElement;
    expect(source.value).toBe("projectSettings");
    expect(source.disabled).toBe(true);

    await user.clear(command);
    await user.type(command, "~/bin/audit-command");
    const matcher = within(form).getByTestId("hook-form-matcher");
    await user.clear(matcher);
    await user.type(matcher, "Bash|Write");
    await user.click(within(form).getByTestId("hook-form-save"));

    await waitFor(() => expect(ipc.called("add_hook")).toHaveLength(1));
    expect(ipc.calls.filter((c) => c.cmd === "remove_hook" || c.cmd === "add_hook")).toEqual([
      {
        cmd: "remove_hook",
        args: { projectPath: PROJECT, source: "projectSettings", hook: { event: "PreToolUse", matcher: "Bash", command: "~/bin/audit-command --strict", timeout_secs: 60 } },
      },
      {
        cmd: "add_hook",
        args: { projectPath: PROJECT, source: "projectSettings", hook: { event: "PreToolUse", matcher: "Bash|Write", command: "~/bin/audit-command", timeout_secs: 60 } },
      },
    ]);
    expect((await screen.findByTestId("hook-written")).textContent).toBe(`Saved to ${SHARED_FILE}`);
  });

  it("removes a hook only after the confirmation", async () => {
    const ipc = mockSettings({ remove_hook: () => SHARED_FILE });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("hook-row");
    await user.click(within(row("PreToolUse")).getByTestId("hook-remove"));
    expect(ipc.called("remove_hook")).toEqual([]);
    await user.click(within(row("PreToolUse")).getByTestId("hook-remove-confirm"));
    await waitFor(() =>
      expect(ipc.called("remove_hook")).toEqual([
        { projectPath: PROJECT, source: "projectSettings", hook: { event: "PreToolUse", matcher: "Bash", command: "~/bin/audit-command --strict", timeout_secs: 60 } },
      ]),
    );
    expect((await screen.findByTestId("hook-written")).textContent).toBe(`Removed from ${SHARED_FILE}`);
  });

  it("offers no edit or removal for a hook in a file the app only shows, but tests it", async () => {
    mockSettings();
    renderPanel();
    await screen.findAllByTestId("hook-row");
    const managed = row("Stop");
    expect(managed.dataset.command).toBe("~/bin/company-stop-check");
    expect(within(managed).queryByTestId("hook-edit")).toBeNull();
    expect(within(managed).queryByTestId("hook-remove")).toBeNull();
    expect(within(managed).getByTestId("hook-test")).toBeTruthy();
    expect(within(row("SessionStart")).getByTestId("hook-edit")).toBeTruthy();
  });

  it("tests a listed hook and shows the effect, exit code, output and the sample input", async () => {
    const ipc = mockSettings({ test_hook: () => blocked });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("hook-row");
    await user.click(within(row("PreToolUse")).getByTestId("hook-test"));
    await waitFor(() =>
      expect(ipc.called("test_hook")).toEqual([
        { projectPath: PROJECT, hook: { event: "PreToolUse", matcher: "Bash", command: "~/bin/audit-command --strict", timeout_secs: 60 } },
      ]),
    );
    const result = await within(row("PreToolUse")).findByTestId("hook-test-result");
    expect(within(result).getByTestId("hook-test-effect").textContent).toBe(blocked.effect);
    expect(within(result).getByTestId("hook-test-exit").textContent).toBe("Exit code: 2");
    expect(within(result).getByTestId("hook-test-stderr").textContent).toBe("curl is not allowed");
    expect(within(result).getByTestId("hook-test-stdout").textContent).toBe("(empty)");
    expect(within(result).getByTestId("hook-test-input").textContent).toBe(blocked.input);
    expect(within(result).queryByTestId("hook-test-timed-out")).toBeNull();
  });

  it("tests the hook as typed in the form and says when it timed out", async () => {
    const ipc = mockSettings({
      test_hook: () => ({ input: "{}", exit_code: null, stdout: "partial", stderr: "", timed_out: true, effect: "The hook timed out; the call goes on." }),
    });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("hook-row");
    await user.click(screen.getByTestId("hook-add"));
    const form = screen.getByTestId("hook-form");
    await user.selectOptions(within(form).getByTestId("hook-form-event"), "UserPromptSubmit");
    await user.type(within(form).getByTestId("hook-form-command"), "sleep 100");
    await user.type(within(form).getByTestId("hook-form-timeout"), "2");
    await user.click(within(form).getByTestId("hook-test"));
    await waitFor(() =>
      expect(ipc.called("test_hook")).toEqual([{ projectPath: PROJECT, hook: { event: "UserPromptSubmit", matcher: "", command: "sleep 100", timeout_secs: 2 } }]),
    );
    const result = await within(form).findByTestId("hook-test-result");
    expect(within(result).getByTestId("hook-test-timed-out").textContent).toBe("timed out");
    expect(within(result).getByTestId("hook-test-exit").textContent).toBe("Exit code: none");
    expect(within(result).getByTestId("hook-test-stdout").textContent).toBe("partial");
    expect(ipc.called("add_hook")).toEqual([]);
  });

  it("shows the engine's refusal in the form and keeps what was typed", async () => {
    const ipc = mockSettings({ add_hook: () => Promise.reject("the matcher is not a valid pattern: unclosed group") });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("hook-row");
    await user.click(screen.getByTestId("hook-add"));
    await user.type(screen.getByTestId("hook-form-matcher"), "Bash(");
    await user.type(screen.getByTestId("hook-form-command"), "true");
    await user.click(screen.getByTestId("hook-form-save"));
    expect((await screen.findByTestId("hook-form-error")).textContent).toContain("unclosed group");
    expect(ipc.called("add_hook")).toHaveLength(1);
    expect((screen.getByTestId("hook-form-matcher") as HTMLInputElement).value).toBe("Bash(");
    expect(screen.queryByTestId("hook-written")).toBeNull();
  });

  it("puts the old hook back when the edited one is refused", async () => {
    let adds = 0;
    const ipc = mockSettings({
      remove_hook: () => SHARED_FILE,
      add_hook: () => (++adds === 1 ? Promise.reject("the command is empty after trimming") : SHARED_FILE),
    });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("hook-row");
    await user.click(within(row("PreToolUse")).getByTestId("hook-edit"));
    await user.type(screen.getByTestId("hook-form-command"), " --verbose");
    await user.click(screen.getByTestId("hook-form-save"));
    expect((await screen.findByTestId("hook-form-error")).textContent).toContain("the hook was left as it was");
    const old = { event: "PreToolUse", matcher: "Bash", command: "~/bin/audit-command --strict", timeout_secs: 60 };
    expect(ipc.called("add_hook")).toEqual([
      { projectPath: PROJECT, source: "projectSettings", hook: { ...old, command: "~/bin/audit-command --strict --verbose" } },
      { projectPath: PROJECT, source: "projectSettings", hook: old },
    ]);
  });

  it("shows a refused removal and a failed test", async () => {
    mockSettings({ remove_hook: () => Promise.reject("the file changed on disk"), test_hook: () => Promise.reject("no shell found") });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("hook-row");
    await user.click(within(row("SessionStart")).getByTestId("hook-remove"));
    await user.click(within(row("SessionStart")).getByTestId("hook-remove-confirm"));
    expect((await screen.findByTestId("hooks-error")).textContent).toBe("Could not remove the hook: the file changed on disk");
    await user.click(within(row("SessionStart")).getByTestId("hook-test"));
    expect((await within(row("SessionStart")).findByTestId("hook-test-error")).textContent).toBe("Could not test the hook: no shell found");
  });
});
