// Pure helpers behind the permission dialog: which field the user may edit per tool, how the
// edited input is rebuilt, and how the preview's texts change with the edit.
import type { JsonValue } from "../bindings/serde_json/JsonValue";
import type { DiffHunk } from "./diff";

/** Preview of an Edit/Write call (the engine sends it as JSON; this is its documented shape). */
export interface FileEditPreview {
  kind: "create" | "update";
  path: string;
  hunks: DiffHunk[];
  unified?: string;
  old_text: string;
  new_text: string;
}

/** Preview of a `sed -i` Bash command: one simulated diff per file. */
export interface SedEditPreview {
  kind: "sed_edit";
  files: { path: string; old_sha256?: string; new_sha256?: string; hunks: DiffHunk[]; diff: string }[];
}

export type Preview = FileEditPreview | SedEditPreview;

export function asPreview(value: unknown): Preview | null {
  if (!value || typeof value !== "object") return null;
  const kind = (value as { kind?: unknown }).kind;
  if (kind === "sed_edit" && Array.isArray((value as SedEditPreview).files)) return value as SedEditPreview;
  if ((kind === "create" || kind === "update") && typeof (value as FileEditPreview).path === "string") {
    return value as FileEditPreview;
  }
  return null;
}

export type InputObject = { [key: string]: JsonValue };

export function asObject(input: unknown): InputObject {
  return input && typeof input === "object" && !Array.isArray(input) ? (input as InputObject) : {};
}

/** The input field a user may rewrite before allowing, per tool. */
export function editableField(toolName: string): "new_string" | "content" | "command" | null {
  switch (toolName) {
    case "Edit":
      return "new_string";
    case "Write":
      return "content";
    case "Bash":
      return "command";
    default:
      return null;
  }
}

/** The whole input with the edited field replaced, or null when nothing was changed. */
export function updatedInput(input: unknown, field: string | null, edited: string | null): InputObject | null {
  if (!field || edited === null) return null;
  const obj = asObject(input);
  if (obj[field] === edited) return null;
  return { ...obj, [field]: edited };
}

/**
 * The file's new text after the user's edit, so the diff can be recomputed with jsdiff.
 * Edit: the old text with old_string replaced by the edited new_string (all occurrences when
 * replace_all), falling back to swapping the proposed new_string inside new_text.
 * Write: the edited content is the new text.
 */
export function editedNewText(toolName: string, input: unknown, preview: FileEditPreview, edited: string): string {
  if (toolName === "Write") return edited;
  const obj = asObject(input);
  const oldString = typeof obj.old_string === "string" ? obj.old_string : "";
  const newString = typeof obj.new_string === "string" ? obj.new_string : "";
  const replaceAll = obj.replace_all === true;
  if (oldString && preview.old_text.includes(oldString)) {
    return replaceAll
      ? preview.old_text.split(oldString).join(edited)
      : preview.old_text.replace(oldString, () => edited);
  }
  if (newString && preview.new_text.includes(newString)) {
    return preview.new_text.replace(newString, () => edited);
  }
  return preview.new_text;
}

export function prettyJson(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? "null";
  } catch {
    return String(value);
  }
}

/** True when a key event comes from somewhere the user types text: shortcuts must stay out. */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag === "INPUT") {
    const type = (target as HTMLInputElement).type;
    return !["button", "checkbox", "radio", "submit", "reset"].includes(type);
  }
  return false;
}

/** What a key pressed in the permission dialog answers, if anything. */
export type Shortcut = "allow" | "always" | "deny";

/**
 * The answer a key stands for: Enter/Y allow once, A always allows, N/Escape deny. Nothing while
 * typing, with a modifier held, during IME composition, or when a focused button takes its own
 * Enter/Space.
 */
export function shortcutFor(e: KeyboardEvent): Shortcut | null {
  if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return null;
  if (isTypingTarget(e.target)) return null;
  if (e.target instanceof HTMLButtonElement && (e.key === "Enter" || e.key === " ")) return null;
  const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  if (key === "Enter" || key === "y") return "allow";
  if (key === "a") return "always";
  if (key === "n" || key === "Escape") return "deny";
  return null;
}

/** The tool that asks the user to approve a plan and leave plan mode. */
export const EXIT_PLAN_MODE = "ExitPlanMode";

/** The plan (Markdown) an ExitPlanMode request asks to approve; null for any other request. */
export function planOf(toolName: string, input: unknown): string | null {
  if (toolName !== EXIT_PLAN_MODE) return null;
  const plan = asObject(input).plan;
  return typeof plan === "string" ? plan : null;
}
