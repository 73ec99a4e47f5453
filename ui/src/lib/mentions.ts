// `@` mentions in the prompt box: the mention being typed, inserting the chosen path (or taking the
// mention out, when what it named became an attachment), and splitting a path into matched and
// unmatched runs for highlighting.

/** A mention being typed: `@query` from `start` to `end` (the whole word around the caret). */
export interface Mention {
  start: number;
  end: number;
  /** What to search for: the typed text between `@` and the caret (an opening quote dropped). */
  query: string;
}

/** The mention under the caret: a word starting with `@` at the start of the prompt or after
 *  whitespace, with at least one character typed after the `@`. */
export function mentionAt(text: string, caret: number): Mention | null {
  let start = caret;
  while (start > 0 && !/\s/.test(text[start - 1]!)) start--;
  if (text[start] !== "@") return null;
  let end = caret;
  while (end < text.length && !/\s/.test(text[end]!)) end++;
  const query = text.slice(start + 1, caret).replace(/^"/, "");
  if (!query || query.includes("@")) return null;
  return { start, end, query };
}

/** How a path is written in a prompt: quoted when it holds whitespace. */
export const mentionText = (path: string) => (/\s/.test(path) ? `@"${path}"` : `@${path}`);

/** Replaces the typed mention with `@path` and a space (unless whitespace follows already); the
 *  caret goes after that space. */
export function insertMention(text: string, mention: Mention, path: string): { text: string; caret: number } {
  const before = text.slice(0, mention.start) + mentionText(path);
  const after = text.slice(mention.end);
  if (/^\s/.test(after)) return { text: before + after, caret: before.length + 1 };
  return { text: `${before} ${after}`, caret: before.length + 1 };
}

/** Takes the typed mention out (what it named went into a chip): one of the blanks around it goes
 *  with it, and the caret stays where the mention was. */
export function removeMention(text: string, mention: Mention): { text: string; caret: number } {
  let start = mention.start;
  let end = mention.end;
  const blankBefore = start === 0 || /\s/.test(text[start - 1]!);
  if (blankBefore && / /.test(text[end] ?? "")) end++;
  else if (start > 0 && text[start - 1] === " " && end === text.length) start--;
  return { text: text.slice(0, start) + text.slice(end), caret: start };
}

/** The path in runs of matched (`hit`) and unmatched characters; `indices` count characters
 *  (Unicode scalar values, as the engine does), not UTF-16 units. */
export function highlightRuns(path: string, indices: readonly number[]): { text: string; hit: boolean }[] {
  const hits = new Set(indices);
  const runs: { text: string; hit: boolean }[] = [];
  Array.from(path).forEach((ch, i) => {
    const hit = hits.has(i);
    const last = runs.at(-1);
    if (last && last.hit === hit) last.text += ch;
    else runs.push({ text: ch, hit });
  });
  return runs;
}
