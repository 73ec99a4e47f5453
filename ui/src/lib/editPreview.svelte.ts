// The engine's preview of a permission request's input as the user edits it in the dialog. The
// tool computes it (Edit's forgiving matching, Write's line endings, sed's simulation), so the
// window never recomputes a change: it asks once typing pauses and keeps only the answer to its
// latest question, which an older answer arriving late can never replace.
import type { PermissionPreview } from "../bindings/PermissionPreview";
import type { JsonValue } from "../bindings/serde_json/JsonValue";
import { errorText, previewPermissionEdit } from "./ipc";

/** Long enough that the engine is not asked on every keystroke, short enough to feel live. */
export const EDIT_PREVIEW_DELAY_MS = 150;

/** What the engine answered about one edited input. */
export type EditOutcome =
  | { state: "ready"; preview: PermissionPreview | null }
  | { state: "failed"; message: string };

/** What the dialog shows for the input as it stands. */
export interface ShownPreview {
  outcome: EditOutcome;
  /** The outcome is about an earlier input: the engine has not answered about this one yet. */
  stale: boolean;
}

export class EditPreviews {
  /** The answer to the latest question, with the input it is about (as JSON). */
  #answer: { key: string; outcome: EditOutcome } | null = $state(null);
  /** Counts questions; an answer is kept only while its question is still the latest. */
  #asked = 0;

  /**
   * What to show for `edited` (null: the input as the tool proposed it, whose preview came with the
   * request). Until the engine answers about an edit, the last answer (or the original) stays,
   * marked stale, so the dialog does not flicker while the user types.
   */
  shown(original: PermissionPreview | null, edited: JsonValue | null): ShownPreview {
    const proposed: EditOutcome = { state: "ready", preview: original };
    if (edited === null) return { outcome: proposed, stale: false };
    const answer = this.#answer;
    if (answer?.key === JSON.stringify(edited)) return { outcome: answer.outcome, stale: false };
    return { outcome: answer?.outcome ?? proposed, stale: true };
  }

  /** Asks the engine about `edited` after the pause; returns what cancels the question (for an
   *  `$effect`'s cleanup). Null forgets every answer: the input is back to the proposal. */
  ask(sessionId: string, requestId: string, edited: JsonValue | null): () => void {
    const asked = ++this.#asked;
    if (edited === null) {
      this.#answer = null;
      return () => {};
    }
    const key = JSON.stringify(edited);
    const keep = (outcome: EditOutcome) => {
      if (asked === this.#asked) this.#answer = { key, outcome };
    };
    const timer = setTimeout(() => {
      previewPermissionEdit(sessionId, requestId, edited).then(
        (preview) => keep({ state: "ready", preview }),
        (e: unknown) => keep({ state: "failed", message: errorText(e) }),
      );
    }, EDIT_PREVIEW_DELAY_MS);
    return () => clearTimeout(timer);
  }
}
