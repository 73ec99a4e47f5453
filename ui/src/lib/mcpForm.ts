// The add/edit form of an MCP server as plain values: what a server's spec looks like while it is
// typed, and the spec the engine gets. Only emptiness and shape are checked here; anything else
// is the engine's to refuse (its message is shown in the form).
import type { McpServerSpec } from "../bindings/McpServerSpec";
import type { McpScope } from "./ipc";
import { joinWords, splitWords } from "./shellWords";

export const MCP_SCOPES: readonly McpScope[] = ["local", "project", "user"];

/** Who gets a server written to each scope (the scope's name first: the engine's word for it). */
export const SCOPE_LABELS: Record<McpScope, string> = {
  local: "local — only you, this project",
  project: "project — shared with the repository",
  user: "user — all your projects",
};

/** Where each scope is written, and what that means. */
export const SCOPE_HINTS: Record<McpScope, string> = {
  local: "Written to .nerve/settings.local.json (not committed).",
  project: "Written to .mcp.json, shared with the repository: each user approves the server before it starts.",
  user: "Written to your user settings, read by every project.",
};

export type McpTransport = McpServerSpec["type"];

export const TRANSPORT_LABELS: Record<McpTransport, string> = { stdio: "stdio (a local command)", http: "HTTP", sse: "SSE" };

/** `McpServerView.scope` is a plain string: a known one, or null for one the app cannot write. */
export function asScope(scope: string): McpScope | null {
  return (MCP_SCOPES as readonly string[]).includes(scope) ? (scope as McpScope) : null;
}

/** One environment variable or header row; `id` keys the row while its key is being typed. */
export interface Pair {
  id: number;
  key: string;
  value: string;
}

export interface McpDraft {
  name: string;
  scope: McpScope;
  type: McpTransport;
  command: string;
  /** The arguments as one line, split like a shell command line when saved. */
  args: string;
  env: Pair[];
  url: string;
  headers: Pair[];
}

let nextPairId = 0;

export function newPair(key = "", value = ""): Pair {
  return { id: nextPairId++, key, value };
}

export function emptyDraft(scope: McpScope = "local"): McpDraft {
  return { name: "", scope, type: "stdio", command: "", args: "", env: [], url: "", headers: [] };
}

const pairs = (record: Record<string, string>) => Object.entries(record).map(([k, v]) => newPair(k, v));

/** The form for editing a configured server, prefilled from its spec. */
export function draftFromSpec(name: string, scope: McpScope, spec: McpServerSpec): McpDraft {
  const draft = { ...emptyDraft(scope), name, type: spec.type };
  if (spec.type === "stdio") return { ...draft, command: spec.command, args: joinWords(spec.args), env: pairs(spec.env) };
  return { ...draft, url: spec.url, headers: pairs(spec.headers) };
}

export type DraftCheck = { ok: true; spec: McpServerSpec } | { ok: false; error: string };

const NAME = /^[A-Za-z0-9_-]+$/;
const URL_START = /^https?:\/\/\S+$/;
/** An environment variable's name as a shell would take it. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** An HTTP header's name: no whitespace, no colon. */
const HEADER_NAME = /^[^\s:]+$/;

/** Rows into a record; a fully empty row is a row the user added and left, so it is dropped. */
function record(rows: Pair[], what: string, shape: RegExp): { ok: true; record: Record<string, string> } | { ok: false; error: string } {
  const out: Record<string, string> = {};
  for (const row of rows) {
    const key = row.key.trim();
    if (!key && !row.value) continue;
    if (!key) return { ok: false, error: `A ${what} has a value but no name.` };
    if (!shape.test(key)) return { ok: false, error: `"${key}" is not a valid ${what} name.` };
    if (Object.hasOwn(out, key)) return { ok: false, error: `The ${what} ${key} is given twice.` };
    out[key] = row.value;
  }
  return { ok: true, record: out };
}

/** The spec to send, or why the form cannot be sent yet. */
export function specFromDraft(draft: McpDraft): DraftCheck {
  const name = draft.name.trim();
  if (!name) return { ok: false, error: "Give the server a name." };
  if (!NAME.test(name)) return { ok: false, error: "A name may hold only letters, digits, - and _." };
  if (draft.type === "stdio") {
    const command = draft.command.trim();
    if (!command) return { ok: false, error: "Give the command that starts the server." };
    const args = splitWords(draft.args);
    if (!args.ok) return args;
    const env = record(draft.env, "variable", ENV_NAME);
    if (!env.ok) return env;
    return { ok: true, spec: { type: "stdio", command, args: args.words, env: env.record } };
  }
  const url = draft.url.trim();
  if (!url) return { ok: false, error: "Give the server's URL." };
  if (!URL_START.test(url)) return { ok: false, error: "The URL must start with http:// or https://." };
  const headers = record(draft.headers, "header", HEADER_NAME);
  if (!headers.ok) return headers;
  return { ok: true, spec: { type: draft.type, url, headers: headers.record } };
}
