// Wording for a call whose input is still being written (a Write's content, an Edit's new text, a
// Bash command as the model writes it): the tail that fits a card and how much arrived.
import type { StreamingInput } from "./conversation/types";

/** Lines of a streaming input a card shows: the newest. */
export const STREAM_TAIL_LINES = 30;

/** The last `count` lines of `text`, found from the end so a long Write is not split whole. */
export function lastLines(text: string, count: number = STREAM_TAIL_LINES): string {
  let at = text.length;
  // A final line break ends the last line; it starts no new one.
  if (text.endsWith("\n")) at -= 1;
  for (let n = 0; n < count; n++) {
    at = text.lastIndexOf("\n", at - 1);
    if (at < 0) return text;
  }
  return text.slice(at + 1);
}

/** How many lines arrived (a last line without its break counts). */
export function lineCount(stream: StreamingInput): number {
  if (!stream.text) return 0;
  return stream.newlines + (stream.text.endsWith("\n") ? 0 : 1);
}

/** "12 lines · 3.4 KB so far". */
export function streamedText(stream: StreamingInput): string {
  const lines = lineCount(stream);
  const kb = (stream.bytes / 1024).toFixed(1);
  return `${lines.toLocaleString("en-US")} ${lines === 1 ? "line" : "lines"} · ${kb} KB so far`;
}
