// A command's output as a terminal shows it: colours, bold and underline (SGR escapes) as styled
// spans, progress redraws (`\r` frames) collapsed to their last frame, every other escape
// (cursor moves, screen clears, window titles, hyperlinks) dropped. The HTML comes from ansi_up,
// which escapes the text: what a command prints is never markup here, whatever it holds.
import { AnsiUp } from "ansi_up";
import type { CommandDisplay } from "../bindings/CommandDisplay";

/** A finished call's `display` that holds its output as a terminal shows it (Bash, when the
 *  output had escapes or redraws). */
export function isCommandDisplay(v: unknown): v is CommandDisplay {
  return typeof v === "object" && v !== null && typeof (v as { terminal?: unknown }).terminal === "string";
}

// Escape sequences, as ECMA-48 shapes them. A CSI that ends in `m` with digits and semicolons only
// is a colour (SGR): the one kind kept. The same shape ansi_up accepts, so nothing it would show
// as text gets through (a colon form, `38:2:…m`, is dropped whole).
const SGR = /\x1b\[[\d;]*m/g;
/** CSI (cursor, erase, modes), OSC (titles, hyperlinks: up to BEL or ST), the other two-character
 *  escapes, a lone ESC, and the C0 controls a page cannot show (tab and newline stay). The OSC 8
 *  of a hyperlink goes and its text stays, as plain text: a link from a command is never live. */
const NOT_SHOWN = /\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[\x20-\x2f]*[\x30-\x7e]?|[\x00-\x08\x0b-\x1f\x7f]/g;

/**
 * Each line as the terminal leaves it after carriage returns: the text after its last `\r`, the
 * earlier frames gone (a progress bar drawn again and again shows its last state). A `\r` ending
 * the line (a CRLF, or a frame whose next one has not come yet) only moved the cursor: the frame
 * before it stays. The colours set in a dropped frame still apply to the one kept.
 */
export function collapseCarriageReturns(text: string): string {
  if (!text.includes("\r")) return text;
  return text
    .split("\n")
    .map((line) => {
      const trimmed = line.replace(/\r+$/, "");
      const last = trimmed.lastIndexOf("\r");
      if (last < 0) return trimmed;
      const dropped = trimmed.slice(0, last).match(SGR)?.join("") ?? "";
      return dropped + trimmed.slice(last + 1);
    })
    .join("\n");
}

/** The text with only its colour escapes left (see NOT_SHOWN). */
function coloursOnly(text: string): string {
  return text.replace(NOT_SHOWN, (seq) => (/^\x1b\[[\d;]*m$/.test(seq) ? seq : ""));
}

/** One line of a command's output: its HTML (escaped text in styled spans) and the text it shows. */
export interface TerminalLine {
  html: string;
  text: string;
}

/** A converter set up the app's way: the 16 colours as classes (themed in app.css, readable in
 *  the light and the dark theme), links never made. Only 256-colour and true-colour escapes come
 *  out as inline colours: the command chose those exact shades. */
function converter(): AnsiUp {
  const up = new AnsiUp();
  up.use_classes = true;
  up.escape_html = true;
  up.url_allowlist = {};
  return up;
}

/**
 * A command's output, line by line, as a terminal shows it. A colour set on one line goes on on
 * the next until reset, as in the terminal, so each line can be drawn on its own (a virtualised
 * list, a numbered row).
 */
export function terminalLines(text: string): TerminalLine[] {
  const up = converter();
  return collapseCarriageReturns(text).split("\n").map((raw) => {
    const kept = coloursOnly(raw);
    return { html: up.ansi_to_html(kept), text: kept.replace(SGR, "") };
  });
}

/** The text a command's output shows (what find searches): `terminalLines`' texts. Kept for as
 *  many outputs as a long session has, since every search goes through all of them. */
const textCache = new Map<string, string>();
export function terminalText(text: string): string {
  if (!text.includes("\x1b") && !/[\x00-\x08\x0b-\x1f\x7f]/.test(text)) return text;
  const hit = textCache.get(text);
  if (hit !== undefined) return hit;
  const shown = collapseCarriageReturns(text)
    .split("\n")
    .map((line) => coloursOnly(line).replace(SGR, ""))
    .join("\n");
  if (textCache.size >= 2000) textCache.delete(textCache.keys().next().value!);
  textCache.set(text, shown);
  return shown;
}
