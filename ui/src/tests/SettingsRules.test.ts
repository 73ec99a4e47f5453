// Permission rules in Settings: every rule in effect with where it comes from, a live check of a
// rule being typed (the engine's parser, its error range marked), and edits that show the rules
// the engine answers with.
import { describe, expect, it, vi } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import SettingsPanel from "../lib/components/SettingsPanel.svelte";
import type { RulesView } from "../bindings/RulesView";
import { appState } from "./live";
import { invalid, LOCAL_FILE, mockSettings, PROJECT, rulesView, SHARED_FILE, valid } from "./settingsFixtures";

function renderPanel() {
  render(SettingsPanel, { app: appState(), onchanged: vi.fn(), onclose: vi.fn(), projectPath: PROJECT, sessionId: "s1" });
}

const row = (rule: string) => {
  const found = screen.getAllByTestId("rule-row").find((r) => r.dataset.rule === rule);
  if (!found) throw new Error(`no row for ${rule}`);
  return found;
};

describe("Permission rules", () => {
  it("lists every rule in effect by behaviour, with its source and file; only the user's own are editable", async () => {
    const ipc = mockSettings();
    renderPanel();
    const list = await screen.findByTestId("rules-list");
    expect(ipc.called("get_project_settings")).toEqual([{ projectPath: PROJECT, sessionId: "s1" }]);

    const rows = within(list).getAllByTestId("rule-row");
    // Deny first, then ask, then allow; the engine's order within each.
    expect(rows.map((r) => [r.dataset.behavior, r.dataset.rule])).toEqual([
      ["deny", "Bash(curl *)"],
      ["ask", "Bash(git push *)"],
      ["allow", "Bash(npm test)"],
      ["allow", "Read"],
      ["allow", "WebFetch(domain:docs.rs)"],
    ]);
    expect(row("Bash(curl *)").textContent).toContain("Managed policy");
    expect(row("Bash(git push *)").textContent).toContain("Project (shared)");
    expect(row("Bash(npm test)").textContent).toContain("Project (local, not committed)");
    expect(row("Read").textContent).toContain("This session");
    expect(row("WebFetch(domain:docs.rs)").textContent).toContain("Claude Code project");
    // A long path is shortened in the middle; the whole of it is in the title.
    const path = row("Bash(git push *)").querySelector<HTMLElement>("[title]");
    expect(path?.title).toBe(SHARED_FILE);

    expect(within(row("Bash(curl *)")).queryByTestId("rule-edit")).toBeNull();
    expect(within(row("Read")).queryByTestId("rule-remove")).toBeNull();
    expect(within(row("Bash(npm test)")).getByTestId("rule-edit")).toBeTruthy();

    expect(screen.getByTestId("rule-warning").textContent).toContain("Bash(git *)");
    expect(screen.getByTestId("rules-applies-note").textContent).toContain("new sessions");
    // New rules go to the most personal file first.
    expect((screen.getByTestId("rule-add-file") as HTMLSelectElement).value).toBe("localSettings");
  });

  it("shows the parser's message and marks exactly the faulty part; Save stays off", async () => {
    // UTF-16 positions, as the engine gives them: the folder emoji counts two.
    const text = "Read(📁/**)x";
    const start = text.indexOf("x");
    mockSettings({ check_rule: ({ text: t }) => (t === text ? invalid("unexpected text after the rule", start, start + 1) : valid(String(t))) });
    const user = userEvent.setup();
    renderPanel();
    const input = await screen.findByTestId("rule-add-input");
    await user.type(input, text);

    expect((await screen.findByTestId("rule-error")).textContent).toBe("unexpected text after the rule");
    expect(screen.getByTestId("rule-error-span").textContent).toBe("x");
    expect(screen.getByTestId("rule-error-span").parentElement?.textContent).toBe(text);
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect((screen.getByTestId("rule-add-save") as HTMLButtonElement).disabled).toBe(true);

    await user.type(input, "{Backspace}");
    await waitFor(() => expect(screen.queryByTestId("rule-error")).toBeNull());
    await waitFor(() => expect((screen.getByTestId("rule-add-save") as HTMLButtonElement).disabled).toBe(false));
  });

  it("checks a rule once typing pauses, not on every keystroke", async () => {
    const ipc = mockSettings();
    const user = userEvent.setup();
    renderPanel();
    await user.type(await screen.findByTestId("rule-add-input"), "Bash(ls)");
    await waitFor(() => expect(ipc.called("check_rule").at(-1)).toEqual({ text: "Bash(ls)" }));
    expect(ipc.called("check_rule").length).toBeLessThan("Bash(ls)".length);
  });

  it("adds a valid rule to the chosen file and shows the rules the engine answers with", async () => {
    const after: RulesView = rulesView();
    after.rules.push({ behavior: "deny", rule: "Bash(rm -rf *)", source: "projectSettings", path: SHARED_FILE, editable: true });
    const ipc = mockSettings({ check_rule: ({ text }) => valid(text === "Bash(rm -rf:*)" ? "Bash(rm -rf *)" : String(text)), edit_rule: () => after });
    const user = userEvent.setup();
    renderPanel();
    await user.selectOptions(await screen.findByTestId("rule-add-behavior"), "deny");
    await user.selectOptions(screen.getByTestId("rule-add-file"), "projectSettings");
    await user.type(screen.getByTestId("rule-add-input"), "Bash(rm -rf:*)");
    // The engine's spelling is shown when it differs from what was typed.
    expect((await screen.findByTestId("rule-normalized")).textContent).toContain("Bash(rm -rf *)");
    await user.click(screen.getByTestId("rule-add-save"));

    await waitFor(() => expect(ipc.called("edit_rule")).toHaveLength(1));
    expect(ipc.called("edit_rule")[0]).toEqual({
      projectPath: PROJECT,
      source: "projectSettings",
      behavior: "deny",
      edit: { op: "add", rule: "Bash(rm -rf:*)" },
    });
    expect((await screen.findAllByTestId("rule-row")).some((r) => r.dataset.rule === "Bash(rm -rf *)")).toBe(true);
    expect((screen.getByTestId("rule-add-input") as HTMLInputElement).value).toBe("");
  });

  it("asks before removing a rule, then removes it from its own file", async () => {
    const after: RulesView = rulesView();
    after.rules = after.rules.filter((r) => r.rule !== "Bash(npm test)");
    const ipc = mockSettings({ edit_rule: () => after });
    const user = userEvent.setup();
    renderPanel();
    await screen.findByTestId("rules-list");
    await user.click(within(row("Bash(npm test)")).getByTestId("rule-remove"));
    expect(ipc.called("edit_rule")).toHaveLength(0);
    expect(row("Bash(npm test)").textContent).toContain(LOCAL_FILE);

    await user.click(within(row("Bash(npm test)")).getByTestId("rule-remove-confirm"));
    await waitFor(() => expect(ipc.called("edit_rule")).toHaveLength(1));
    expect(ipc.called("edit_rule")[0]).toEqual({
      projectPath: PROJECT,
      source: "localSettings",
      behavior: "allow",
      edit: { op: "remove", rule: "Bash(npm test)" },
    });
    await waitFor(() => expect(screen.getAllByTestId("rule-row").some((r) => r.dataset.rule === "Bash(npm test)")).toBe(false));
  });

  it("edits a rule in place, checked live, as a replace", async () => {
    const ipc = mockSettings({ edit_rule: () => rulesView() });
    const user = userEvent.setup();
    renderPanel();
    await screen.findByTestId("rules-list");
    await user.click(within(row("Bash(git push *)")).getByTestId("rule-edit"));
    const input = within(row("Bash(git push *)")).getByTestId("rule-edit-input");
    await user.clear(input);
    await user.type(input, "Bash(git push origin *)");
    const save = within(row("Bash(git push *)")).getByTestId("rule-edit-save") as HTMLButtonElement;
    await waitFor(() => expect(save.disabled).toBe(false));
    await user.click(save);
    await waitFor(() => expect(ipc.called("edit_rule")).toHaveLength(1));
    expect(ipc.called("edit_rule")[0]).toEqual({
      projectPath: PROJECT,
      source: "projectSettings",
      behavior: "ask",
      edit: { op: "replace", old: "Bash(git push *)", new: "Bash(git push origin *)" },
    });
  });

  it("shows why an edit failed and keeps the list", async () => {
    mockSettings({ edit_rule: () => Promise.reject(`${SHARED_FILE} is read-only`) });
    const user = userEvent.setup();
    renderPanel();
    await screen.findByTestId("rules-list");
    await user.click(within(row("Bash(git push *)")).getByTestId("rule-remove"));
    await user.click(within(row("Bash(git push *)")).getByTestId("rule-remove-confirm"));
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("is read-only");
    expect(screen.getAllByTestId("rule-row")).toHaveLength(5);
  });
});
