// The app's keyboard shortcuts: one table of the actions that have keys (or may be given some),
// the key strings people and the settings speak ("Ctrl+Shift+A", "Alt+1", "Ctrl+,", "Mod+K"),
// and matching a KeyboardEvent against an action as the user's overrides have it
// (`AppSettings.shortcuts`: action id → keys; an action not named keeps its default).
// Pure functions; the effective map the app reads lives in keymap.svelte.ts.
//
// `Mod` is the platform's command key: Ctrl on Linux and Windows, Cmd (Meta) on macOS. Escape
// (stop the turn, close a dialog) is not here: it is wired where it acts and cannot be changed.

export type ShortcutGroup = "Sessions" | "Conversation" | "Panels" | "App";
export const GROUPS: readonly ShortcutGroup[] = ["App", "Sessions", "Conversation", "Panels"];

/** Who acts on the keys: the App (whatever the main area shows), or the shown session's screen. */
export type ShortcutScope = "app" | "session";

const GOTO = [1, 2, 3, 4, 5, 6, 7, 8, 9] as const;
export type GotoId = `session.goto.${(typeof GOTO)[number]}`;

export type ActionId =
  | "palette.open"
  | "settings.open"
  | "session.next"
  | "session.previous"
  | GotoId
  | "session.new"
  | "approval.jump"
  | "find.open"
  | "prompt.previous"
  | "prompt.next"
  | "terminal.toggle"
  | "prompts.toggle"
  | "changes.toggle"
  | "tasks.toggle"
  | "outputs.open";

export interface ShortcutAction {
  id: ActionId;
  /** What it does, for people (the palette, Settings → Keyboard). */
  label: string;
  group: ShortcutGroup;
  /** Its keys until the user changes them; null: none (the palette runs it; keys may be given). */
  keys: string | null;
  scope: ShortcutScope;
  /** Offered in the command palette (stepping and numbered keys make no sense there). */
  palette: boolean;
  /** Its keys work while the terminal has the focus too: a shell has no use for them (the shell
   *  keeps Ctrl+letter and Alt+key, which readline uses). */
  terminal?: boolean;
}

export const ACTIONS: readonly ShortcutAction[] = [
  { id: "palette.open", label: "Open the command palette", group: "App", keys: "Mod+K", scope: "app", palette: false },
  { id: "settings.open", label: "Open Settings", group: "App", keys: "Mod+,", scope: "app", palette: true, terminal: true },
  { id: "session.next", label: "Next session", group: "Sessions", keys: "Ctrl+Tab", scope: "app", palette: false, terminal: true },
  { id: "session.previous", label: "Previous session", group: "Sessions", keys: "Ctrl+Shift+Tab", scope: "app", palette: false, terminal: true },
  ...GOTO.map((n): ShortcutAction => ({ id: `session.goto.${n}`, label: `Session ${n}`, group: "Sessions", keys: `Alt+${n}`, scope: "app", palette: false })),
  { id: "session.new", label: "New session in this project", group: "Sessions", keys: "Mod+Shift+N", scope: "app", palette: true, terminal: true },
  { id: "approval.jump", label: "Go to the waiting approval", group: "Sessions", keys: "Mod+Shift+A", scope: "app", palette: true, terminal: true },
  { id: "find.open", label: "Find in the conversation", group: "Conversation", keys: "Mod+F", scope: "session", palette: true },
  { id: "prompt.previous", label: "Previous prompt", group: "Conversation", keys: "Alt+Up", scope: "session", palette: false },
  { id: "prompt.next", label: "Next prompt", group: "Conversation", keys: "Alt+Down", scope: "session", palette: false },
  // Ctrl on macOS too: it always was (Cmd+` switches windows there).
  { id: "terminal.toggle", label: "Show or hide the terminal", group: "Panels", keys: "Ctrl+`", scope: "session", palette: true, terminal: true },
  { id: "prompts.toggle", label: "Show or hide the prompts", group: "Panels", keys: "Mod+Shift+P", scope: "session", palette: true, terminal: true },
  { id: "changes.toggle", label: "Show or hide the changes", group: "Panels", keys: null, scope: "session", palette: true },
  { id: "tasks.toggle", label: "Show or hide the tasks", group: "Panels", keys: null, scope: "session", palette: true },
  { id: "outputs.open", label: "Open the saved outputs", group: "Panels", keys: null, scope: "app", palette: true },
];

const BY_ID = new Map(ACTIONS.map((a) => [a.id, a]));

export function actionOf(id: string): ShortcutAction | undefined {
  return BY_ID.get(id as ActionId);
}

/** Which live session a `session.goto.N` action shows: N - 1 (the sidebar's order); null for
 *  another action. */
export function gotoIndex(id: ActionId): number | null {
  const m = /^session\.goto\.(\d)$/.exec(id);
  return m ? Number(m[1]) - 1 : null;
}

/** The user's overrides: action id → keys ("" for none). */
export type Overrides = Readonly<Record<string, string>>;

/** A key with its modifiers, normalised: letters upper case, digits and punctuation as typed
 *  unshifted ("1", ",", "`"), other keys by name ("Tab", "Up", "F5", "Space"). */
export interface Combo {
  ctrl: boolean;
  alt: boolean;
  shift: boolean;
  meta: boolean;
  key: string;
}

/** Whether the app runs on macOS (where `Mod` is Cmd and keys are shown as ⌘⇧K). */
export function isMac(): boolean {
  return typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform);
}

// Keys by name (besides F1–F24), and what else people write for them.
const NAMED = new Set(["Tab", "Enter", "Escape", "Space", "Backspace", "Delete", "Insert", "Home", "End", "PageUp", "PageDown", "Up", "Down", "Left", "Right"]);
const KEY_ALIASES: Record<string, string> = {
  arrowup: "Up",
  arrowdown: "Down",
  arrowleft: "Left",
  arrowright: "Right",
  "↑": "Up",
  "↓": "Down",
  "←": "Left",
  "→": "Right",
  esc: "Escape",
  return: "Enter",
  del: "Delete",
  " ": "Space",
  comma: ",",
  period: ".",
  backquote: "`",
  backtick: "`",
  plus: "+",
  minus: "-",
  slash: "/",
};

/** A key's normalised name, or null for one this table does not know. */
function keyName(raw: string): string | null {
  if (raw === "") return null;
  const alias = KEY_ALIASES[raw.toLowerCase()];
  if (alias) return alias;
  if (raw.length === 1) return raw.toUpperCase();
  if (/^f([1-9]|1[0-9]|2[0-4])$/i.test(raw)) return raw.toUpperCase();
  const named = [...NAMED].find((n) => n.toLowerCase() === raw.toLowerCase());
  return named ?? null;
}

/** Parses "Ctrl+Shift+A", "Alt+1", "Ctrl+,", "Mod+K", "Ctrl++"; null when it names no key or an
 *  unknown modifier. `Mod` is Cmd on macOS, Ctrl elsewhere. */
export function parseKeys(text: string, mac = isMac()): Combo | null {
  let rest = text.trim();
  let raw: string;
  if (rest.endsWith("++") || rest === "+") {
    raw = "+";
    rest = rest.slice(0, -2);
  } else {
    const at = rest.lastIndexOf("+");
    raw = rest.slice(at + 1).trim();
    rest = at < 0 ? "" : rest.slice(0, at);
  }
  const key = keyName(raw);
  if (!key) return null;
  const combo: Combo = { ctrl: false, alt: false, shift: false, meta: false, key };
  for (const part of rest === "" ? [] : rest.split("+")) {
    switch (part.trim().toLowerCase()) {
      case "ctrl":
      case "control":
        combo.ctrl = true;
        break;
      case "alt":
      case "option":
      case "opt":
        combo.alt = true;
        break;
      case "shift":
        combo.shift = true;
        break;
      case "meta":
      case "cmd":
      case "command":
      case "super":
      case "win":
        combo.meta = true;
        break;
      case "mod":
        if (mac) combo.meta = true;
        else combo.ctrl = true;
        break;
      default:
        return null;
    }
  }
  return combo;
}

/** The keys as stored in the settings: "Ctrl+Alt+Shift+Meta+K" (modifiers in that order). */
export function keysText(combo: Combo): string {
  const parts = [combo.ctrl && "Ctrl", combo.alt && "Alt", combo.shift && "Shift", combo.meta && "Meta"].filter((p): p is string => Boolean(p));
  return [...parts, combo.key].join("+");
}

const ARROWS: Record<string, string> = { Up: "↑", Down: "↓", Left: "←", Right: "→" };

/** The keys as shown: "Ctrl+Shift+A", "Alt+↑"; on macOS "⌃⌥⇧⌘K". */
export function formatCombo(combo: Combo, mac = isMac()): string {
  const key = ARROWS[combo.key] ?? combo.key;
  if (mac) return `${combo.ctrl ? "⌃" : ""}${combo.alt ? "⌥" : ""}${combo.shift ? "⇧" : ""}${combo.meta ? "⌘" : ""}${key}`;
  const parts = [combo.ctrl && "Ctrl", combo.alt && "Alt", combo.shift && "Shift", combo.meta && "Meta"].filter((p): p is string => Boolean(p));
  return [...parts, key].join("+");
}

export function sameCombo(a: Combo, b: Combo): boolean {
  return a.ctrl === b.ctrl && a.alt === b.alt && a.shift === b.shift && a.meta === b.meta && a.key === b.key;
}

/** Whether the combo holds a command modifier: without one it would be typing, not a shortcut. */
export function hasCommandModifier(combo: Combo): boolean {
  return combo.ctrl || combo.alt || combo.meta || /^F\d+$/.test(combo.key);
}

// Punctuation by where it sits: Shift and Alt change what `key` says ("<" for Shift+Comma, "≤"
// for Option+Comma on a Mac), the key's place does not.
const CODE_KEYS: Record<string, string> = {
  Backquote: "`",
  Minus: "-",
  Equal: "=",
  BracketLeft: "[",
  BracketRight: "]",
  Backslash: "\\",
  Semicolon: ";",
  Quote: "'",
  Comma: ",",
  Period: ".",
  Slash: "/",
};

function codeKey(code: string): string | null {
  const letter = /^Key([A-Z])$/.exec(code);
  if (letter) return letter[1]!;
  return CODE_KEYS[code] ?? null;
}

const MODIFIER_KEYS = new Set(["Control", "Alt", "AltGraph", "Shift", "Meta", "OS", "Super", "Hyper", "CapsLock", "Fn"]);

/**
 * The combo a key press makes; null for a modifier alone or a key with no name (an IME's). The
 * printed character (`key`) names Latin letters and unshifted ASCII punctuation, so a letter means
 * the same on any Latin layout; the key's place (`code`) names digits (Shift+1 is "!", Option+1
 * "¡"), the backquote (a dead key on many layouts), what Shift or Alt changed, and the letters of
 * other scripts (Ctrl+F on a Cyrillic layout is still Ctrl+F).
 */
export function eventCombo(e: KeyboardEvent): Combo | null {
  if (MODIFIER_KEYS.has(e.key) || e.key === "Unidentified" || e.key === "Process") return null;
  const mods = { ctrl: e.ctrlKey, alt: e.altKey, shift: e.shiftKey, meta: e.metaKey };
  const digit = /^Digit(\d)$/.exec(e.code);
  let key: string | null;
  if (digit) key = digit[1]!;
  else if (e.code === "Backquote") key = "`";
  else if (e.key.length === 1 && /[a-z]/i.test(e.key)) key = e.key.toUpperCase();
  else if (/^[!-~]$/.test(e.key) && !e.shiftKey && !e.altKey) key = e.key;
  else key = codeKey(e.code) ?? keyName(e.key);
  return key ? { ...mods, key } : null;
}

/** An action's keys as the user has them: the override when it parses ("" is none), else the
 *  default. */
export function keysOf(id: ActionId, overrides: Overrides = {}, mac = isMac()): Combo | null {
  const override = overrides[id];
  if (override !== undefined) {
    if (override.trim() === "") return null;
    const parsed = parseKeys(override, mac);
    if (parsed) return parsed;
  }
  const keys = actionOf(id)?.keys;
  return keys ? parseKeys(keys, mac) : null;
}

/** Whether the key press is the action's shortcut. */
export function matches(e: KeyboardEvent, id: ActionId, overrides: Overrides = {}, mac = isMac()): boolean {
  const pressed = eventCombo(e);
  const keys = keysOf(id, overrides, mac);
  return pressed !== null && keys !== null && sameCombo(pressed, keys);
}

/** Whether the key press is typing into a text field: a combo with no command modifier there is
 *  the field's, whatever action has it. */
function typing(e: KeyboardEvent, combo: Combo): boolean {
  const target = e.target;
  if (!(target instanceof Element) || hasCommandModifier(combo)) return false;
  return target.closest("input, textarea, select, [contenteditable]:not([contenteditable=false])") !== null;
}

/** The action of the given scope whose shortcut the key press is, if any (never plain typing in a
 *  text field). */
export function actionFor(e: KeyboardEvent, scope: ShortcutScope, overrides: Overrides = {}, mac = isMac()): ActionId | null {
  const pressed = eventCombo(e);
  if (!pressed || typing(e, pressed)) return null;
  for (const action of ACTIONS) {
    if (action.scope !== scope) continue;
    const keys = keysOf(action.id, overrides, mac);
    if (keys && sameCombo(keys, pressed)) return action.id;
  }
  return null;
}

/** Whether the terminal lets the key press through to the app: the shortcut of an action marked
 *  `terminal`. */
export function passesTerminal(e: KeyboardEvent, overrides: Overrides = {}, mac = isMac()): boolean {
  return ACTIONS.some((a) => a.terminal && matches(e, a.id, overrides, mac));
}

/** The other action that has these keys, if any (two actions never share a combo). */
export function conflictWith(id: ActionId, combo: Combo, overrides: Overrides = {}, mac = isMac()): ActionId | null {
  for (const action of ACTIONS) {
    if (action.id === id) continue;
    const keys = keysOf(action.id, overrides, mac);
    if (keys && sameCombo(keys, combo)) return action.id;
  }
  return null;
}

/** Every pair of actions sharing a combo under these overrides (settings edited by hand). */
export function conflicts(overrides: Overrides = {}, mac = isMac()): [ActionId, ActionId][] {
  const out: [ActionId, ActionId][] = [];
  const bound = ACTIONS.flatMap((a) => {
    const keys = keysOf(a.id, overrides, mac);
    return keys ? [{ id: a.id, keys }] : [];
  });
  bound.forEach((a, i) => {
    for (const b of bound.slice(i + 1)) if (sameCombo(a.keys, b.keys)) out.push([a.id, b.id]);
  });
  return out;
}

/** The overrides with the action set to `combo`: none kept when it is the default (only what
 *  differs is stored). */
export function withKeys(overrides: Overrides, id: ActionId, combo: Combo, mac = isMac()): Record<string, string> {
  const next = { ...overrides };
  const fallback = actionOf(id)?.keys;
  const defaults = fallback ? parseKeys(fallback, mac) : null;
  if (defaults && sameCombo(defaults, combo)) delete next[id];
  else next[id] = keysText(combo);
  return next;
}

/** The overrides without the action's: it has its default keys again. */
export function withoutKeys(overrides: Overrides, id: ActionId): Record<string, string> {
  const next = { ...overrides };
  delete next[id];
  return next;
}
