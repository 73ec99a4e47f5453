// An MCP server's arguments typed on one line, split the way a shell would split them (and joined
// back for editing). Nothing is expanded: `${VAR}` stays as typed, the engine expands it when the
// server starts.
//
// Rules (a POSIX shell's, minus expansion):
// - whitespace separates words; quotes join: `--name "My Server"` is two words;
// - inside '…' every character is literal;
// - inside "…" a backslash escapes only `"` and `\`;
// - outside quotes a backslash escapes whitespace, a quote or a backslash, and is kept before any
//   other character, so a Windows path such as `C:\Users\me\server.js` needs no doubling;
// - `''` or `""` is an empty word.

export type SplitResult = { ok: true; words: string[] } | { ok: false; error: string };

const SPACE = /\s/;

/** Whether a backslash outside quotes escapes `next` (otherwise it is a literal backslash). */
const escapable = (next: string | undefined) => next !== undefined && (SPACE.test(next) || next === '"' || next === "'" || next === "\\");

export function splitWords(line: string): SplitResult {
  const words: string[] = [];
  let word = "";
  // A word can be empty yet present (`""`), so "is there a word" is tracked apart from its text.
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === "\\" && (line[i + 1] === '"' || line[i + 1] === "\\")) word += line[++i];
      else word += c;
    } else if (SPACE.test(c)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      inWord = true;
      if (c === '"' || c === "'") quote = c;
      else if (c === "\\" && escapable(line[i + 1])) word += line[++i];
      else word += c;
    }
  }
  if (quote) return { ok: false, error: `The arguments have an unclosed ${quote === '"' ? "double" : "single"} quote.` };
  if (inWord) words.push(word);
  return { ok: true, words };
}

/** Characters a word can hold unquoted and still split back to itself. */
const PLAIN = /^[^\s"'\\]+$/;

/** Words as one line that `splitWords` turns back into the same words (for an edit form). */
export function joinWords(words: readonly string[]): string {
  return words.map(quoteWord).join(" ");
}

function quoteWord(word: string): string {
  if (PLAIN.test(word)) return word;
  if (!word.includes("'")) return `'${word}'`;
  return `"${word.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}
