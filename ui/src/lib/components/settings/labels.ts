// Words for the engine's enums on the settings screen. Only names live here: every decision
// (what a rule means, which rule applies, whether a server may start) is the engine's.
import type { DecidedBy } from "../../../bindings/DecidedBy";
import type { DefinitionProblem } from "../../../bindings/DefinitionProblem";
import type { DefinitionSource } from "../../../bindings/DefinitionSource";
import type { ModelProvider } from "../../../bindings/ModelProvider";
import type { PartDecision } from "../../../bindings/PartDecision";
import type { RuleBehavior } from "../../../bindings/RuleBehavior";
import type { RuleSource } from "../../../bindings/RuleSource";

/** The APIs a model server may speak, as the settings' selector offers them. */
export const PROVIDERS: readonly { value: ModelProvider; label: string }[] = [
  { value: "anthropic", label: "Anthropic (Messages API)" },
  { value: "openai-chat", label: "OpenAI-compatible (Chat Completions)" },
  { value: "openai-responses", label: "OpenAI (Responses API)" },
];

/** Whose API key the keyring entry of each API holds. */
export const PROVIDER_KEY_LABELS: Record<ModelProvider, string> = {
  anthropic: "Anthropic API key",
  "openai-chat": "OpenAI-compatible API key",
  "openai-responses": "OpenAI-compatible API key",
};

/** Shown by every section that needs an open project when none is open. */
export const NO_PROJECT = "Open a project to see its rules, hooks, MCP servers, sub-agents, skills and memory files.";

export const SOURCE_LABELS: Record<RuleSource, string> = {
  policySettings: "Managed policy",
  cliArg: "Command line",
  session: "This session",
  localSettings: "Project (local, not committed)",
  projectSettings: "Project (shared)",
  userSettings: "User",
  claudeLocalSettings: "Claude Code local",
  claudeProjectSettings: "Claude Code project",
};

/** Matched rules and warnings name their source as a plain string; known ones get their label. */
export function sourceLabel(source: string): string {
  return Object.hasOwn(SOURCE_LABELS, source) ? SOURCE_LABELS[source as RuleSource] : source;
}

/** The engine's order of behaviours: a deny beats an ask, an ask beats an allow. */
export const BEHAVIORS: readonly RuleBehavior[] = ["deny", "ask", "allow"];

export const BEHAVIOR_LABELS: Record<RuleBehavior, string> = { deny: "Deny", ask: "Ask", allow: "Allow" };

export const DECIDED_BY_LABELS: Record<DecidedBy, string> = {
  rule: "a permission rule",
  hook: "a hook",
  tool: "the tool itself",
  mode: "the permission mode",
  read_only: "the call only reading",
  protected_path: "a protected path",
  unparsed: "a command that could not be parsed",
  classifier: "the auto-mode classifier",
  user: "the user",
  default: "the default (nothing else decided)",
};

export const PART_LABELS: Record<PartDecision, string> = {
  denied: "denied",
  ask_rule: "ask rule",
  allowed_by_rule: "allowed by rule",
  read_only: "read-only",
  neutral: "neutral",
  needs_approval: "needs approval",
};

/** Which folder a sub-agent type or skill was read from. */
export const DEFINITION_SOURCE_LABELS: Record<DefinitionSource, string> = {
  user_claude: "User · Claude Code",
  user_nerve: "User · Nerve",
  project_claude: "Project · Claude Code",
  project_nerve: "Project · Nerve",
};

/** A definition file that could not be used, as `path:line: message` (`path: message` when the
 *  problem is not on one line), the way `nerve agents` names it. */
export function definitionProblemText(p: DefinitionProblem): string {
  return p.line === null ? `${p.path}: ${p.message}` : `${p.path}:${p.line}: ${p.message}`;
}

/** Shortens `text` to `max` characters by cutting its middle, keeping more of the end (a path's
 *  file name is what tells files apart). The full text belongs in a `title`. */
export function shortenMiddle(text: string, max = 48): string {
  if (text.length <= max) return text;
  const keep = Math.max(max - 1, 2);
  const head = Math.floor(keep * 0.4);
  return `${text.slice(0, head)}…${text.slice(text.length - (keep - head))}`;
}
