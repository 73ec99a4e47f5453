// Slash commands in the prompt box: which name is being typed, which commands match it, completing
// it, and the built-ins the UI carries out itself instead of sending. Everything else that starts
// with `/` is sent as typed: the engine expands custom commands (an unknown `/word` is just text).
import type { PermissionMode } from "../bindings/PermissionMode";
import type { SlashCommand } from "../bindings/SlashCommand";

/** The command name being typed: the prompt starts with `/` and the caret is still in its first
 *  word. Null when no name is being typed (the menu stays closed). */
export function commandQuery(text: string, caret: number): string | null {
  if (!text.startsWith("/") || caret < 1) return null;
  const end = nameEnd(text);
  if (caret > end) return null;
  return text.slice(1, end);
}

/** Where the first word (`/name`) ends. */
function nameEnd(text: string): number {
  const m = /\s/.exec(text);
  return m ? m.index : text.length;
}

/** The commands whose names match `query` (case-insensitively): the name typed in full first (so
 *  Enter runs it), then those starting with it, then those containing it, each group in the
 *  engine's order (built-ins first). */
export function filterCommands(commands: readonly SlashCommand[], query: string): SlashCommand[] {
  const q = query.toLowerCase();
  const exact: SlashCommand[] = [];
  const prefix: SlashCommand[] = [];
  const inside: SlashCommand[] = [];
  for (const c of commands) {
    const name = c.name.toLowerCase();
    if (name === q) exact.push(c);
    else if (name.startsWith(q)) prefix.push(c);
    else if (name.includes(q)) inside.push(c);
  }
  return [...exact, ...prefix, ...inside];
}

/** Replaces the typed `/name` with the chosen one, followed by a space (where the arguments go);
 *  the rest of the prompt stays. Returns the new text and where the caret goes. */
export function completeCommand(text: string, name: string): { text: string; caret: number } {
  const rest = text.slice(nameEnd(text));
  const head = `/${name}`;
  if (/^\s/.test(rest)) return { text: head + rest, caret: head.length + 1 };
  return { text: `${head} ${rest}`, caret: head.length + 1 };
}

/** The commands the UI carries out itself. */
export type Builtin =
  | { name: "compact"; instructions: string | null }
  | { name: "clear" }
  | { name: "rewind" }
  | { name: "model"; model: string | null }
  | { name: "effort"; effort: string | null }
  | { name: "mode"; mode: string | null }
  | { name: "memory" };

/** The built-in a prompt invokes, or null when it is to be sent (custom commands, plain text). */
export function parseBuiltin(prompt: string): Builtin | null {
  const m = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(prompt.trim());
  if (!m) return null;
  const args = m[2]?.trim() || null;
  switch (m[1]) {
    case "compact":
      return { name: "compact", instructions: args };
    case "clear":
      return { name: "clear" };
    case "rewind":
      return { name: "rewind" };
    case "model":
      return { name: "model", model: args };
    case "effort":
      return { name: "effort", effort: args };
    case "mode":
      return { name: "mode", mode: args };
    case "memory":
      return { name: "memory" };
    default:
      return null;
  }
}

// Every mode decides here whether `/mode` offers it, so a new engine mode cannot be forgotten.
// "bubble" is the engine's own (a subagent hands its requests to the parent), not the user's.
const TYPED_MODES: Record<PermissionMode, boolean> = {
  default: true,
  acceptEdits: true,
  plan: true,
  bypassPermissions: true,
  dontAsk: true,
  auto: true,
  bubble: false,
};

/** The modes `/mode` accepts, in the engine's order. */
export const MODES = (Object.keys(TYPED_MODES) as PermissionMode[]).filter((m) => TYPED_MODES[m]);

/** The mode a typed name means (case does not matter: `acceptedits` is `acceptEdits`). */
export function modeNamed(name: string): PermissionMode | null {
  const lower = name.toLowerCase();
  return MODES.find((m) => m.toLowerCase() === lower) ?? null;
}
