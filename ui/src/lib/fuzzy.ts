// A small fuzzy matcher for the command palette: every word typed must appear in an item's name,
// as a whole or as letters in order ("hidterm" finds "Show or hide the terminal"), or whole in its
// quieter words (a project, a description, its kind), which score lower: letters scattered through
// a long path or description would match nearly anything. What appears whole, at the start of a
// word, or in one run scores higher. Case does not matter.

/** How well one word of the query matches the text; null when it does not. */
function wordScore(word: string, text: string): number | null {
  const at = text.indexOf(word);
  // Whole: best at the start of a word, and the earlier the better.
  if (at >= 0) return 100 + (startsWord(text, at) ? 50 : 0) - Math.min(at, 50) + word.length;
  let score = 0;
  let from = 0;
  let previous = -2;
  for (const ch of word) {
    const found = text.indexOf(ch, from);
    if (found < 0) return null;
    score += 1;
    if (found === previous + 1) score += 5;
    if (startsWord(text, found)) score += 8;
    score -= Math.min(found - from, 10) * 0.5;
    previous = found;
    from = found + 1;
  }
  return score;
}

function startsWord(text: string, at: number): boolean {
  return at === 0 || !/[\p{L}\p{N}]/u.test(text[at - 1]!);
}

/** What a word found whole in the quieter words is worth. */
const QUIET_MATCH = 20;

/** The score of a name and its quieter words for the query (higher is better); null when they
 *  do not match. An empty query matches everything alike. */
export function fuzzyScore(query: string, name: string, quiet = ""): number | null {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const lowerName = name.toLowerCase();
  const lowerQuiet = quiet.toLowerCase();
  let total = 0;
  for (const word of words) {
    const score = wordScore(word, lowerName) ?? (lowerQuiet.includes(word) ? QUIET_MATCH : null);
    if (score === null) return null;
    total += score;
  }
  return total;
}

/** The items that match, best first; equally good ones keep their order. `textOf` gives an item's
 *  name and its quieter words. */
export function fuzzyFilter<T>(items: readonly T[], query: string, textOf: (item: T) => [string, string]): T[] {
  if (query.trim() === "") return [...items];
  return items
    .flatMap((item, index) => {
      const score = fuzzyScore(query, ...textOf(item));
      return score === null ? [] : [{ item, index, score }];
    })
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map((s) => s.item);
}
