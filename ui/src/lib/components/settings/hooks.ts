// The hooks' form: the events it offers, which take a matcher, the files a hook may be written to,
// and the spec the engine gets. What a hook does with an event is the engine's to say.
import type { HookSpec } from "../../../bindings/HookSpec";
import type { HookView } from "../../../bindings/HookView";
import type { RuleSource } from "../../../bindings/RuleSource";

export const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "UserPromptSubmit",
  "Stop",
  "SubagentStop",
  "SessionStart",
  "SessionEnd",
  "PreCompact",
  "Notification",
] as const;

/** Only the tool events match on the tool's name; the others run on every event. */
export const takesMatcher = (event: string) => event === "PreToolUse" || event === "PostToolUse";

/** The timeout a hook without one gets. */
export const DEFAULT_TIMEOUT_SECS = 60;

export type HookFile = "localSettings" | "projectSettings" | "userSettings";

/** The files a hook can be written to, the most personal first. */
export const HOOK_FILES: readonly { source: HookFile; label: string; hint: string }[] = [
  { source: "localSettings", label: "Local", hint: ".nerve/settings.local.json, only you" },
  { source: "projectSettings", label: "Project", hint: ".nerve/settings.json, shared" },
  { source: "userSettings", label: "User", hint: "all your projects" },
];

export const asHookFile = (source: RuleSource | null): HookFile | null =>
  HOOK_FILES.find((f) => f.source === source)?.source ?? null;

/** A listed hook as the engine finds it to remove or test. */
export const specOf = (hook: HookView): HookSpec => ({
  event: hook.event,
  matcher: hook.matcher,
  command: hook.command,
  timeout_secs: hook.timeout_secs,
});

export interface HookDraft {
  event: string;
  matcher: string;
  command: string;
  timeout: string;
  source: HookFile;
}

export const emptyHookDraft = (): HookDraft => ({ event: "PreToolUse", matcher: "", command: "", timeout: "", source: "localSettings" });

export const draftOf = (hook: HookView, source: HookFile): HookDraft => ({
  event: hook.event,
  matcher: hook.matcher,
  command: hook.command,
  timeout: String(hook.timeout_secs),
  source,
});

/** The spec of a draft, or why there is none (an empty command, a timeout that is no whole
 *  number of seconds). A matcher goes only with the tool events. */
export function specOfDraft(d: HookDraft): { spec: HookSpec } | { error: string } {
  const command = d.command.trim();
  if (!command) return { error: "The command is empty." };
  const t = d.timeout.trim();
  let timeout_secs: number | null = null;
  if (t) {
    const n = Number(t);
    if (!Number.isInteger(n) || n < 1) return { error: "The timeout must be a whole number of seconds, 1 or more." };
    timeout_secs = n;
  }
  return { spec: { event: d.event, matcher: takesMatcher(d.event) ? d.matcher.trim() : "", command, timeout_secs } };
}
