// Recalling earlier prompts with Up/Down, as in a shell. Up only acts with the caret on the first
// line and Down on the last, so moving through a multi-line prompt keeps working as usual.

/** Where the recall stands: `at` indexes the history (null: the user's own text, kept as draft). */
export interface Recall {
  at: number | null;
  draft: string;
}

export const NOT_RECALLING: Recall = { at: null, draft: "" };

export const caretOnFirstLine = (text: string, caret: number) => !text.slice(0, caret).includes("\n");
export const caretOnLastLine = (text: string, caret: number) => !text.slice(caret).includes("\n");

/**
 * One step through `history` (oldest first): "older" for Up, "newer" for Down. Returns the text to
 * show and the new position, or null when there is nowhere to go. Going past the newest entry
 * gives back the draft that was in the box when recalling began.
 */
export function recall(
  history: readonly string[],
  state: Recall,
  current: string,
  direction: "older" | "newer",
): { text: string; state: Recall } | null {
  if (direction === "older") {
    if (state.at === null) {
      const at = history.length - 1;
      return at < 0 ? null : { text: history[at]!, state: { at, draft: current } };
    }
    if (state.at === 0) return null;
    const at = state.at - 1;
    return { text: history[at]!, state: { at, draft: state.draft } };
  }
  if (state.at === null) return null;
  if (state.at >= history.length - 1) return { text: state.draft, state: NOT_RECALLING };
  const at = state.at + 1;
  return { text: history[at]!, state: { at, draft: state.draft } };
}
