// Pure helpers behind the permission dialog: which field the user may edit per tool and how the
// edited input is rebuilt (the engine previews it: see editPreview.svelte.ts), shortcuts, plans.
import type { EditableField } from "../bindings/EditableField";
import type { PermissionRequest } from "../bindings/PermissionRequest";
import type { JsonValue } from "../bindings/serde_json/JsonValue";

export type InputObject = { [key: string]: JsonValue };

export function asObject(input: unknown): InputObject {
  return input && typeof input === "object" && !Array.isArray(input) ? (input as InputObject) : {};
}

/** The input field a user may rewrite before allowing, as the engine says (its wire name is the
 *  input's key). */
export function editableField(request: Pick<PermissionRequest, "editable_field">): EditableField | null {
  return request.editable_field;
}

/** The whole input with the edited field replaced, or null when nothing was changed. */
export function updatedInput(input: unknown, field: string | null, edited: string | null): InputObject | null {
  if (!field || edited === null) return null;
  const obj = asObject(input);
  if (obj[field] === edited) return null;
  return { ...obj, [field]: edited };
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

/** The plan (Markdown) a request of the plan kind asks to approve (ExitPlanMode's `plan`); null
 *  for any other request. */
export function planOf(request: Pick<PermissionRequest, "kind" | "input">): string | null {
  if (request.kind.kind !== "plan") return null;
  const plan = asObject(request.input).plan;
  return typeof plan === "string" ? plan : null;
}
