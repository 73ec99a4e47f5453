// Settings → MCP servers managed from the app: adding (stdio, HTTP), editing, removing and
// importing servers, switching a connected server's tools off and on, and its log. Every change
// names the file it wrote and checks the servers again.
import { describe, expect, it, vi } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import SettingsPanel from "../lib/components/SettingsPanel.svelte";
import type { McpImportReport } from "../bindings/McpImportReport";
import type { McpServerView } from "../bindings/McpServerView";
import { appState } from "./live";
import { LOCAL_FILE, mcpServers, mockSettings, PROJECT, projectSettings, USER_FILE } from "./settingsFixtures";

const MCP_JSON = `${PROJECT}/.mcp.json`;

function renderPanel() {
  render(SettingsPanel, { app: appState(), onchanged: vi.fn(), onclose: vi.fn(), projectPath: PROJECT, sessionId: null });
}

const server = (name: string) => {
  const found = screen.queryAllByTestId("mcp-server").find((s) => s.dataset.server === name);
  if (!found) throw new Error(`no server ${name}`);
  return found;
};

const field = (testid: string) => screen.getByTestId(testid) as HTMLInputElement;

/** A local stdio server, connected, with three tools of which `shout` is switched off. */
const KIT: McpServerView = {
  name: "kit",
  scope: "local",
  config_file: LOCAL_FILE,
  transport: "node kit.js --title 'My Kit'",
  approved_in: LOCAL_FILE,
  remote: false,
  switchable: false,
  status: { state: "connected", tools: ["mcp__kit__echo", "mcp__kit__add", "mcp__kit__shout"] },
  spec: { type: "stdio", command: "node", args: ["kit.js", "--title", "My Kit"], env: { KIT_TOKEN: "${KIT_TOKEN}" } },
  tools_off: ["mcp__kit__shout"],
  stderr: [],
  enabled: true,
};

/** The settings with these servers after the fixture's two (github, docs). */
const withServers = (...extra: McpServerView[]) => () => ({ ...projectSettings(), mcp_servers: [...mcpServers(), ...extra] });

/** Replaces a field's text; `paste` types `${VAR}` as it is (user.type reads `{` as a key). */
async function fill(user: ReturnType<typeof userEvent.setup>, el: HTMLElement, text: string) {
  await user.clear(el);
  if (text) {
    await user.click(el);
    await user.paste(text);
  }
}

/** Fills the last name/value row of a KeyValueRows list. */
async function fillLastRow(user: ReturnType<typeof userEvent.setup>, rowTestid: string, key: string, value: string) {
  const rows = screen.getAllByTestId(rowTestid);
  const row = rows[rows.length - 1]!;
  await fill(user, within(row).getByTestId(`${rowTestid.replace(/-row$/, "")}-key`), key);
  await fill(user, within(row).getByTestId(`${rowTestid.replace(/-row$/, "")}-value`), value);
}

describe("Adding a server", () => {
  it("adds a stdio server: arguments split like a command line, two variables, to the local file", async () => {
    const added: McpServerView = { ...KIT, name: "notes", status: { state: "not_started" }, tools_off: [] };
    const ipc = mockSettings({
      add_mcp_server: () => LOCAL_FILE,
      probe_mcp_servers: () => [...mcpServers(), added],
    });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("mcp-server");
    expect(screen.queryByTestId("mcp-form")).toBeNull();
    await user.click(screen.getByTestId("mcp-add"));

    expect(screen.getByTestId("mcp-form")).not.toBeNull();
    // The caret starts in the name.
    expect(document.activeElement).toBe(field("mcp-form-name"));
    expect(field("mcp-form-scope").value).toBe("local");
    expect(screen.getByTestId("mcp-form").textContent).toContain("Written to .nerve/settings.local.json (not committed).");
    expect(screen.getByTestId("mcp-form-vars").textContent).toContain("${VAR:-default}");
    await fill(user, field("mcp-form-name"), "notes");
    await fill(user, field("mcp-form-command"), "node");
    await fill(user, field("mcp-form-args"), 'server.js --root "/home/me/My Notes" --verbose');
    await user.click(screen.getByTestId("mcp-form-env-add"));
    await fillLastRow(user, "mcp-form-env-row", "NOTES_TOKEN", "${NOTES_TOKEN}");
    await user.click(screen.getByTestId("mcp-form-env-add"));
    await fillLastRow(user, "mcp-form-env-row", "LOG_LEVEL", "debug");
    // A row added and removed again is not sent.
    await user.click(screen.getByTestId("mcp-form-env-add"));
    expect(screen.getAllByTestId("mcp-form-env-row")).toHaveLength(3);
    await user.click(within(screen.getAllByTestId("mcp-form-env-row")[2]!).getByTestId("mcp-form-env-remove"));
    expect(screen.getAllByTestId("mcp-form-env-row")).toHaveLength(2);
    expect(ipc.called("add_mcp_server")).toEqual([]);
    await user.click(screen.getByTestId("mcp-form-save"));

    await waitFor(() =>
      expect(ipc.called("add_mcp_server")).toEqual([
        {
          projectPath: PROJECT,
          scope: "local",
          name: "notes",
          spec: {
            type: "stdio",
            command: "node",
            args: ["server.js", "--root", "/home/me/My Notes", "--verbose"],
            env: { NOTES_TOKEN: "${NOTES_TOKEN}", LOG_LEVEL: "debug" },
          },
        },
      ]),
    );
    expect((await screen.findByTestId("mcp-written")).textContent).toBe(`Saved to ${LOCAL_FILE}`);
    await waitFor(() => expect(ipc.called("probe_mcp_servers")).toEqual([{ projectPath: PROJECT }]));
    await waitFor(() => expect(server("notes")).not.toBeNull());
    expect(screen.queryByTestId("mcp-form")).toBeNull();
  });

  it("adds an HTTP server with a header, to the user's settings", async () => {
    const ipc = mockSettings({ add_mcp_server: () => USER_FILE, probe_mcp_servers: () => mcpServers() });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("mcp-server");
    await user.click(screen.getByTestId("mcp-add"));
    await fill(user, field("mcp-form-name"), "linear");
    await user.selectOptions(field("mcp-form-type"), "http");
    // The command's fields give way to the URL's.
    expect(screen.queryByTestId("mcp-form-command")).toBeNull();
    await fill(user, field("mcp-form-url"), "https://mcp.linear.app/mcp");
    await user.click(screen.getByTestId("mcp-form-header-add"));
    await fillLastRow(user, "mcp-form-header-row", "Authorization", "Bearer ${LINEAR_TOKEN}");
    await user.selectOptions(field("mcp-form-scope"), "user");
    expect(screen.getByTestId("mcp-form").textContent).toContain("Written to your user settings, read by every project.");
    await user.click(screen.getByTestId("mcp-form-save"));

    await waitFor(() =>
      expect(ipc.called("add_mcp_server")).toEqual([
        {
          projectPath: PROJECT,
          scope: "user",
          name: "linear",
          spec: { type: "http", url: "https://mcp.linear.app/mcp", headers: { Authorization: "Bearer ${LINEAR_TOKEN}" } },
        },
      ]),
    );
    expect((await screen.findByTestId("mcp-written")).textContent).toBe(`Saved to ${USER_FILE}`);
    await waitFor(() => expect(ipc.called("probe_mcp_servers")).toHaveLength(1));
    // The line is about the last change: another action (a check) takes it away.
    await waitFor(() => expect((screen.getByTestId("mcp-probe") as HTMLButtonElement).disabled).toBe(false));
    expect(screen.getByTestId("mcp-written")).not.toBeNull();
    await user.click(screen.getByTestId("mcp-probe"));
    await waitFor(() => expect(ipc.called("probe_mcp_servers")).toHaveLength(2));
    expect(screen.queryByTestId("mcp-written")).toBeNull();
  });

  it("shows the engine's refusal in the form and keeps everything typed", async () => {
    let refuse = true;
    const ipc = mockSettings({
      add_mcp_server: () => (refuse ? Promise.reject(`a server named github is already configured in ${LOCAL_FILE}`) : LOCAL_FILE),
      probe_mcp_servers: () => mcpServers(),
    });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("mcp-server");
    await user.click(screen.getByTestId("mcp-add"));
    await fill(user, field("mcp-form-name"), "github");
    await fill(user, field("mcp-form-command"), "npx");
    await fill(user, field("mcp-form-args"), "-y 'my server'");
    await user.click(screen.getByTestId("mcp-form-env-add"));
    await fillLastRow(user, "mcp-form-env-row", "GITHUB_TOKEN", "${GITHUB_TOKEN}");
    await user.click(screen.getByTestId("mcp-form-save"));

    expect((await screen.findByTestId("mcp-form-error")).textContent).toBe(`a server named github is already configured in ${LOCAL_FILE}`);
    expect(ipc.called("add_mcp_server")).toHaveLength(1);
    expect(field("mcp-form-name").value).toBe("github");
    expect(field("mcp-form-command").value).toBe("npx");
    expect(field("mcp-form-args").value).toBe("-y 'my server'");
    const row = screen.getByTestId("mcp-form-env-row");
    expect((within(row).getByTestId("mcp-form-env-key") as HTMLInputElement).value).toBe("GITHUB_TOKEN");
    expect((within(row).getByTestId("mcp-form-env-value") as HTMLInputElement).value).toBe("${GITHUB_TOKEN}");
    expect((screen.getByTestId("mcp-form-save") as HTMLButtonElement).disabled).toBe(false);
    // Nothing was written, so nothing is said to be, and nothing is checked again.
    expect(screen.queryByTestId("mcp-written")).toBeNull();
    expect(ipc.called("probe_mcp_servers")).toEqual([]);

    // Fixed and saved again: the same form sends it.
    refuse = false;
    await fill(user, field("mcp-form-name"), "github2");
    await user.click(screen.getByTestId("mcp-form-save"));
    await waitFor(() => expect(ipc.called("add_mcp_server").map((a) => a.name)).toEqual(["github", "github2"]));
    expect(ipc.called("add_mcp_server")[1]).toEqual({
      projectPath: PROJECT,
      scope: "local",
      name: "github2",
      spec: { type: "stdio", command: "npx", args: ["-y", "my server"], env: { GITHUB_TOKEN: "${GITHUB_TOKEN}" } },
    });
    expect((await screen.findByTestId("mcp-written")).textContent).toBe(`Saved to ${LOCAL_FILE}`);
  });

  it("checks a name, a command and a URL before sending, and sends nothing then", async () => {
    const ipc = mockSettings();
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("mcp-server");
    await user.click(screen.getByTestId("mcp-add"));
    await user.click(screen.getByTestId("mcp-form-save"));
    expect(screen.getByTestId("mcp-form-error").textContent).toBe("Give the server a name.");
    await fill(user, field("mcp-form-name"), "my server");
    await user.click(screen.getByTestId("mcp-form-save"));
    expect(screen.getByTestId("mcp-form-error").textContent).toBe("A name may hold only letters, digits, - and _.");
    await fill(user, field("mcp-form-name"), "my-server");
    await user.click(screen.getByTestId("mcp-form-save"));
    expect(screen.getByTestId("mcp-form-error").textContent).toBe("Give the command that starts the server.");
    await fill(user, field("mcp-form-command"), "node");
    await fill(user, field("mcp-form-args"), '"unclosed');
    await user.click(screen.getByTestId("mcp-form-save"));
    expect(screen.getByTestId("mcp-form-error").textContent).toBe("The arguments have an unclosed double quote.");
    await user.selectOptions(field("mcp-form-type"), "sse");
    await fill(user, field("mcp-form-url"), "ftp://example.com");
    await user.click(screen.getByTestId("mcp-form-save"));
    expect(screen.getByTestId("mcp-form-error").textContent).toBe("The URL must start with http:// or https://.");
    expect(ipc.called("add_mcp_server")).toEqual([]);

    await user.click(screen.getByTestId("mcp-form-cancel"));
    expect(screen.queryByTestId("mcp-form")).toBeNull();
  });
});

describe("Editing and removing a server", () => {
  it("edits a server from a form prefilled from its spec; its name and scope stay", async () => {
    const ipc = mockSettings({ get_project_settings: withServers(KIT), edit_mcp_server: () => LOCAL_FILE, probe_mcp_servers: () => [...mcpServers(), KIT] });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("mcp-server");
    await user.click(within(server("kit")).getByTestId("mcp-edit"));

    const form = screen.getByTestId("mcp-form");
    expect(form.textContent).toContain("Edit kit");
    // The caret goes to the first field that can change.
    expect(document.activeElement).toBe(field("mcp-form-command"));
    expect(field("mcp-form-name").value).toBe("kit");
    expect(field("mcp-form-name").readOnly).toBe(true);
    expect(field("mcp-form-scope").value).toBe("local");
    expect(field("mcp-form-scope").disabled).toBe(true);
    expect(field("mcp-form-type").value).toBe("stdio");
    expect(field("mcp-form-command").value).toBe("node");
    // Quoted again so that it splits back into the same arguments.
    expect(field("mcp-form-args").value).toBe("kit.js --title 'My Kit'");
    const rows = screen.getAllByTestId("mcp-form-env-row");
    expect(rows.map((r) => [(within(r).getByTestId("mcp-form-env-key") as HTMLInputElement).value, (within(r).getByTestId("mcp-form-env-value") as HTMLInputElement).value])).toEqual([
      ["KIT_TOKEN", "${KIT_TOKEN}"],
    ]);
    // One form at a time: the row's Edit waits for this one.
    expect((within(server("kit")).getByTestId("mcp-edit") as HTMLButtonElement).disabled).toBe(true);

    await fill(user, field("mcp-form-args"), "kit.js --title 'My Kit' --fast");
    await user.click(screen.getByTestId("mcp-form-env-add"));
    await fillLastRow(user, "mcp-form-env-row", "KIT_LOG", "${KIT_LOG:-info}");
    await user.click(screen.getByTestId("mcp-form-save"));

    await waitFor(() =>
      expect(ipc.called("edit_mcp_server")).toEqual([
        {
          projectPath: PROJECT,
          scope: "local",
          name: "kit",
          spec: { type: "stdio", command: "node", args: ["kit.js", "--title", "My Kit", "--fast"], env: { KIT_TOKEN: "${KIT_TOKEN}", KIT_LOG: "${KIT_LOG:-info}" } },
        },
      ]),
    );
    expect(ipc.called("add_mcp_server")).toEqual([]);
    expect((await screen.findByTestId("mcp-written")).textContent).toBe(`Saved to ${LOCAL_FILE}`);
    await waitFor(() => expect(ipc.called("probe_mcp_servers")).toEqual([{ projectPath: PROJECT }]));
    expect(screen.queryByTestId("mcp-form")).toBeNull();
  });

  it("offers no edit for a server without a spec, but still removal", async () => {
    const opaque: McpServerView = { ...KIT, name: "opaque", spec: null, status: { state: "not_started" } };
    mockSettings({ get_project_settings: withServers(opaque) });
    renderPanel();
    await screen.findAllByTestId("mcp-server");
    expect(within(server("opaque")).queryByTestId("mcp-edit")).toBeNull();
    expect(within(server("opaque")).getByTestId("mcp-remove")).not.toBeNull();
    expect(within(server("github")).getByTestId("mcp-edit")).not.toBeNull();
  });

  it("removes a server after a confirmation, says from which file, and checks again", async () => {
    const ipc = mockSettings({ remove_mcp_server: () => MCP_JSON, probe_mcp_servers: () => mcpServers().slice(1) });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("mcp-server");
    await user.click(within(server("github")).getByTestId("mcp-remove"));
    // Nothing is removed before the confirmation.
    expect(ipc.called("remove_mcp_server")).toEqual([]);
    expect(server("github").textContent).toContain(`Remove github from ${MCP_JSON}?`);
    await user.click(within(server("github")).getByTestId("mcp-remove-confirm"));

    await waitFor(() => expect(ipc.called("remove_mcp_server")).toEqual([{ projectPath: PROJECT, scope: "project", name: "github" }]));
    expect((await screen.findByTestId("mcp-written")).textContent).toBe(`Removed from ${MCP_JSON}`);
    await waitFor(() => expect(ipc.called("probe_mcp_servers")).toEqual([{ projectPath: PROJECT }]));
    expect(screen.getAllByTestId("mcp-server").map((s) => s.dataset.server)).toEqual(["docs"]);
  });

  it("keeps a server whose removal failed, and says why", async () => {
    const ipc = mockSettings({ remove_mcp_server: () => Promise.reject(`cannot write ${MCP_JSON}: permission denied`) });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("mcp-server");
    await user.click(within(server("github")).getByTestId("mcp-remove"));
    await user.click(within(server("github")).getByTestId("mcp-remove-confirm"));
    expect((await screen.findByRole("alert")).textContent).toBe(`Could not remove github: cannot write ${MCP_JSON}: permission denied`);
    expect(server("github")).not.toBeNull();
    expect(screen.queryByTestId("mcp-written")).toBeNull();
    expect(ipc.called("probe_mcp_servers")).toEqual([]);
  });
});

describe("Importing servers", () => {
  it("imports Claude Desktop's servers into the user's settings and shows the report", async () => {
    const report: McpImportReport = {
      file: USER_FILE,
      imported: ["filesystem", "sqlite"],
      skipped: [{ name: "github", reason: "a server of that name is already configured" }],
    };
    const ipc = mockSettings({ import_mcp_servers: () => report, probe_mcp_servers: () => mcpServers() });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("mcp-server");
    await user.click(screen.getByTestId("mcp-import"));
    await user.selectOptions(field("mcp-import-from"), "claude_desktop");
    await user.selectOptions(field("mcp-import-scope"), "user");
    expect(screen.getByTestId("mcp-import-run").textContent).toBe("Import from Claude Desktop");
    await user.click(screen.getByTestId("mcp-import-run"));

    await waitFor(() => expect(ipc.called("import_mcp_servers")).toEqual([{ projectPath: PROJECT, from: "claude_desktop", scope: "user" }]));
    const shown = await screen.findByTestId("mcp-import-report");
    expect(within(shown).getAllByTestId("mcp-import-imported").map((li) => li.textContent)).toEqual(["filesystem", "sqlite"]);
    expect(within(shown).getAllByTestId("mcp-import-skipped").map((li) => li.textContent)).toEqual(["github: a server of that name is already configured"]);
    expect(shown.textContent).toContain(`Imported into ${USER_FILE}`);
    expect((await screen.findByTestId("mcp-written")).textContent).toBe(`Saved to ${USER_FILE}`);
    await waitFor(() => expect(ipc.called("probe_mcp_servers")).toEqual([{ projectPath: PROJECT }]));

    await user.click(screen.getByTestId("mcp-import-close"));
    expect(screen.queryByTestId("mcp-import-report")).toBeNull();
  });

  it("says when nothing was imported, writes nothing and checks nothing", async () => {
    const report: McpImportReport = { file: LOCAL_FILE, imported: [], skipped: [{ name: "remote", reason: "unsupported transport" }] };
    const ipc = mockSettings({ import_mcp_servers: () => report });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("mcp-server");
    await user.click(screen.getByTestId("mcp-import"));
    await user.click(screen.getByTestId("mcp-import-run"));
    await waitFor(() => expect(ipc.called("import_mcp_servers")).toEqual([{ projectPath: PROJECT, from: "claude_code", scope: "local" }]));
    expect((await screen.findByTestId("mcp-import-report")).textContent).toContain(`Nothing was imported into ${LOCAL_FILE}`);
    expect(screen.getByTestId("mcp-import-skipped").textContent).toBe("remote: unsupported transport");
    expect(screen.queryByTestId("mcp-written")).toBeNull();
    expect(ipc.called("probe_mcp_servers")).toEqual([]);
  });

  it("shows the engine's refusal in the import panel", async () => {
    mockSettings({ import_mcp_servers: () => Promise.reject("no Claude Desktop configuration at ~/.config/Claude/claude_desktop_config.json") });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("mcp-server");
    await user.click(screen.getByTestId("mcp-import"));
    await user.selectOptions(field("mcp-import-from"), "claude_desktop");
    await user.click(screen.getByTestId("mcp-import-run"));
    expect((await screen.findByTestId("mcp-import-error")).textContent).toContain("no Claude Desktop configuration");
    expect(screen.queryByTestId("mcp-import-report")).toBeNull();
  });
});

describe("A connected server's tools and log", () => {
  const tool = (name: string) => {
    const found = within(server("kit")).getAllByTestId("mcp-tool").find((t) => t.dataset.tool === name);
    if (!found) throw new Error(`no tool ${name}`);
    return within(found).getByTestId("mcp-tool-toggle") as HTMLInputElement;
  };

  it("switches a tool off and back on in the local settings, keeping it listed", async () => {
    let finish: (servers: McpServerView[]) => void = () => {};
    const ipc = mockSettings({
      get_project_settings: withServers(KIT),
      set_mcp_tool_enabled: () => LOCAL_FILE,
      probe_mcp_servers: () => new Promise((resolve) => (finish = resolve)),
    });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("mcp-server");
    expect(within(server("kit")).getAllByTestId("mcp-tool").map((t) => t.dataset.tool)).toEqual(["mcp__kit__echo", "mcp__kit__add", "mcp__kit__shout"]);
    expect(tool("mcp__kit__echo").checked).toBe(true);
    expect(tool("mcp__kit__shout").checked).toBe(false);

    await user.click(tool("mcp__kit__echo"));
    await waitFor(() => expect(ipc.called("set_mcp_tool_enabled")).toEqual([{ projectPath: PROJECT, tool: "mcp__kit__echo", enabled: false }]));
    expect((await screen.findByTestId("mcp-written")).textContent).toBe(`Saved to ${LOCAL_FILE}`);
    await waitFor(() => expect(ipc.called("probe_mcp_servers")).toEqual([{ projectPath: PROJECT }]));
    // Off at once, while the servers are checked again.
    expect(tool("mcp__kit__echo").checked).toBe(false);
    expect(screen.getByText(/Checking…/)).not.toBeNull();
    finish([...mcpServers(), { ...KIT, tools_off: ["mcp__kit__shout", "mcp__kit__echo"] }]);
    await waitFor(() => expect(screen.queryByText(/Checking…/)).toBeNull());
    expect(tool("mcp__kit__echo").checked).toBe(false);
    // Still listed, so it can be switched back on.
    expect(within(server("kit")).getAllByTestId("mcp-tool")).toHaveLength(3);

    await user.click(tool("mcp__kit__shout"));
    await waitFor(() =>
      expect(ipc.called("set_mcp_tool_enabled")).toEqual([
        { projectPath: PROJECT, tool: "mcp__kit__echo", enabled: false },
        { projectPath: PROJECT, tool: "mcp__kit__shout", enabled: true },
      ]),
    );
  });

  it("switches the whole server off and back on in the local settings", async () => {
    const ipc = mockSettings({
      get_project_settings: withServers(KIT),
      set_mcp_server_enabled: () => LOCAL_FILE,
      probe_mcp_servers: () => [...mcpServers(), { ...KIT, enabled: false, status: { state: "not_started" } }],
    });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("mcp-server");
    const on = () => within(server("kit")).getByTestId("mcp-enabled") as HTMLInputElement;
    expect(on().checked).toBe(true);
    await user.click(on());
    await waitFor(() => expect(ipc.called("set_mcp_server_enabled")).toEqual([{ projectPath: PROJECT, name: "kit", enabled: false }]));
    expect((await screen.findByTestId("mcp-written")).textContent).toBe(`Saved to ${LOCAL_FILE}`);
    await waitFor(() => expect(on().checked).toBe(false));
    await user.click(on());
    await waitFor(() =>
      expect(ipc.called("set_mcp_server_enabled")).toEqual([
        { projectPath: PROJECT, name: "kit", enabled: false },
        { projectPath: PROJECT, name: "kit", enabled: true },
      ]),
    );
  });

  it("lists a switched-off tool the server no longer reports, so it can come back", async () => {
    const hidden: McpServerView = { ...KIT, status: { state: "connected", tools: ["mcp__kit__echo"] }, tools_off: ["mcp__kit__shout"] };
    mockSettings({ get_project_settings: withServers(hidden) });
    renderPanel();
    await screen.findAllByTestId("mcp-server");
    expect(within(server("kit")).getAllByTestId("mcp-tool").map((t) => [t.dataset.tool, (within(t).getByTestId("mcp-tool-toggle") as HTMLInputElement).checked])).toEqual([
      ["mcp__kit__echo", true],
      ["mcp__kit__shout", false],
    ]);
  });

  it("leaves the switch as it was when the write fails", async () => {
    mockSettings({ get_project_settings: withServers(KIT), set_mcp_tool_enabled: () => Promise.reject("cannot write .nerve/settings.local.json: read-only file system") });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("mcp-server");
    await user.click(tool("mcp__kit__echo"));
    expect((await screen.findByRole("alert")).textContent).toBe("Could not switch mcp__kit__echo off: cannot write .nerve/settings.local.json: read-only file system");
    expect(tool("mcp__kit__echo").checked).toBe(true);
    expect(screen.queryByTestId("mcp-written")).toBeNull();
  });

  it("shows the last lines the server wrote to stderr under Server log", async () => {
    const failing: McpServerView = {
      ...KIT,
      status: { state: "failed", error: "the server exited before answering (exit status 1)" },
      stderr: ["kit: starting", "Error: KIT_TOKEN is not set", "    at main (kit.js:12:9)"],
    };
    mockSettings({ get_project_settings: withServers(failing) });
    const user = userEvent.setup();
    renderPanel();
    await screen.findAllByTestId("mcp-server");
    const log = within(server("kit")).getByTestId("mcp-log") as HTMLDetailsElement;
    expect(log.open).toBe(false);
    expect(log.querySelector("summary")?.textContent).toBe("Server log (3 lines of stderr)");
    await user.click(log.querySelector("summary")!);
    expect(log.open).toBe(true);
    expect(within(log).getByTestId("mcp-log-lines").textContent).toBe("kit: starting\nError: KIT_TOKEN is not set\n    at main (kit.js:12:9)");
    expect(within(log).getByTestId("mcp-log-lines").tagName).toBe("PRE");
    // A server that wrote nothing has no log.
    expect(within(server("github")).queryByTestId("mcp-log")).toBeNull();
  });
});
