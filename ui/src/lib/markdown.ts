// Markdown for model output. The model's text is untrusted: Markdown is rendered first, then the
// HTML is sanitised with DOMPurify, so nothing (raw HTML in the Markdown included) reaches the DOM
// unsanitised. Links are kept as text-bearing anchors but never navigate by themselves
// (MarkdownView cancels clicks); only http(s) and mailto URLs survive.
import DOMPurify from "dompurify";
import { Marked, type Tokens, type TokensList } from "marked";
import { escapeHtml, highlight } from "./highlight";

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    code({ text, lang }: Tokens.Code) {
      const language = (lang ?? "").trim().split(/\s+/)[0]?.toLowerCase() || null;
      const body = highlight(text, language);
      const cls = language ? ` class="hljs language-${escapeHtml(language)}"` : ` class="hljs"`;
      return `<pre><code${cls}>${body}</code></pre>\n`;
    },
  },
});

const SAFE_URL = /^(?:https?:|mailto:)/i;

let hooksInstalled = false;
function installHooks() {
  if (hooksInstalled) return;
  hooksInstalled = true;
  DOMPurify.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A") {
      const href = node.getAttribute("href");
      if (href !== null && !SAFE_URL.test(href.trim())) node.removeAttribute("href");
      node.removeAttribute("target");
      node.setAttribute("rel", "noopener noreferrer nofollow");
      if (node.getAttribute("href")) node.setAttribute("title", node.getAttribute("href")!);
    }
  });
}

const PURIFY_CONFIG = {
  // Images would fetch remote URLs; forms, media and embeds have no place in a chat message.
  FORBID_TAGS: ["style", "img", "svg", "math", "form", "input", "button", "textarea", "select", "iframe", "object", "embed", "video", "audio", "source", "link", "meta", "base"],
  FORBID_ATTR: ["style", "srcset", "action", "formaction"],
  ALLOW_DATA_ATTR: false,
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
};

/** Sanitises arbitrary HTML with the chat-message policy. */
export function sanitize(html: string): string {
  installHooks();
  return DOMPurify.sanitize(html, PURIFY_CONFIG) as string;
}

/** Markdown → safe HTML. */
export function renderMarkdown(text: string): string {
  const html = marked.parse(text, { async: false }) as string;
  return sanitize(html);
}

/** A map that forgets the entry used least recently once it holds `size` entries. */
class Lru<V> {
  private map = new Map<string, V>();
  constructor(private size: number) {}

  get(key: string): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  set(key: string, value: V) {
    this.map.delete(key);
    if (this.map.size >= this.size) this.map.delete(this.map.keys().next().value!);
    this.map.set(key, value);
  }
}

// ---------------------------------------------------------------------------------------------
// Streaming. Rendering a growing message whole on every frame costs its size each time (size²
// over the stream). Instead the text is cut into blocks at boundaries later text cannot move,
// each finished block is rendered once (and kept by its text), and only the growing tail block is
// rendered again. A complete message is rendered the same way (see `renderMessage`): completing
// a streamed one renders only its last block again, and a loaded one is never parsed whole, which
// in the app's webview costs far more than its blocks one by one.

/** A fence opening or closing a code block: up to three spaces, then ``` or ~~~ (or longer). */
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
/** A list item's marker, which a blank line before does not end the list at. */
const LIST_ITEM = /^(?:[*+-]|\d{1,9}[.)])(?:[ \t]|$)/;
/** The start of a line that may still turn out to be a list item's marker. */
const MAYBE_LIST_ITEM = /^(?:[*+-]|\d{1,9}[.)]?)$/;
/** The start of an HTML block that, unlike other HTML, runs on past blank lines to its end marker
 *  (CommonMark's HTML blocks 1 to 5: script/pre/style/textarea, comment, processing instruction,
 *  CDATA, declaration). */
const RAW_HTML = /^ {0,3}(?:<(script|pre|style|textarea)(?=[\s>]|$)|(<!--)|(<\?)|(<!\[CDATA\[)|(<![a-z]))/i;

interface Fence {
  char: string;
  length: number;
}

/** The fence a line opens, if any. */
function fenceOpened(line: string): Fence | null {
  const m = FENCE.exec(line);
  // A backtick fence's info string may not hold a backtick (that line is inline code instead).
  if (!m || (m[1]![0] === "`" && m[2]!.includes("`"))) return null;
  return { char: m[1]![0]!, length: m[1]!.length };
}

function closesFence(line: string, fence: Fence): boolean {
  const m = FENCE.exec(line);
  return !!m && m[1]![0] === fence.char && m[1]!.length >= fence.length && m[2]!.trim() === "";
}

/** What ends the raw HTML block a line opens, or null when it opens none (or ends it at once). */
function rawHtmlEnd(line: string): RegExp | null {
  const m = RAW_HTML.exec(line);
  if (!m) return null;
  const end = m[1] ? new RegExp(`</${m[1]}>`, "i") : m[2] ? /-->/ : m[3] ? /\?>/ : m[4] ? /\]\]>/ : />/;
  return end.test(line.slice(m[0].length)) ? null : end;
}

/**
 * Whether a block boundary goes before a line that follows a blank line: not before an indented
 * line (a list item's or an indented code block's continuation) nor before a list item (which
 * would join the list before it). Judged as soon as the line's start settles it, which is
 * usually its first character: a long paragraph does not keep the block before it open.
 */
function boundaryBefore(line: string, complete: boolean): boolean | "wait" {
  if (line.trim() === "") return "wait";
  if (line[0] === " " || line[0] === "\t") return false;
  if (complete) return !LIST_ITEM.test(line);
  if (LIST_ITEM.test(line)) return false;
  return MAYBE_LIST_ITEM.test(line) ? "wait" : true;
}

/**
 * Finds block boundaries as text streams in. A boundary is the start of a line that follows a
 * blank line outside fenced code and raw HTML blocks and passes `boundaryBefore`. Once found it
 * never moves: later text cannot change how the blocks before it render. Fed a longer text that
 * keeps what was looked at, it resumes where it stopped.
 */
export class BlockScanner {
  private text = "";
  /** Where the next unscanned line starts. */
  private pos = 0;
  /** How much of the text the findings depend on (a little past `pos` once an unfinished line
   *  was judged). */
  private seen = 0;
  private fence: Fence | null = null;
  /** What ends the raw HTML block the scan is in. */
  private rawEnd: RegExp | null = null;
  private afterBlank = false;
  private hasContent = false;
  /** Where each finished block ends (the next one starts). */
  ends: number[] = [];

  /** Takes the text as it stands; returns false when it does not extend the one scanned (the
   *  boundaries found so far are then dropped and found again). */
  feed(text: string): boolean {
    const extends_ = text.length >= this.seen && text.startsWith(this.text.slice(0, this.seen));
    if (!extends_) this.reset();
    this.text = text;
    for (let nl = text.indexOf("\n", this.pos); nl >= 0; nl = text.indexOf("\n", this.pos)) {
      this.line(text.slice(this.pos, nl), this.pos);
      this.pos = nl + 1;
    }
    this.seen = this.pos;
    // The unfinished last line may already settle a boundary before it.
    if (this.afterBlank && !this.fence && this.pos < text.length) {
      const verdict = boundaryBefore(text.slice(this.pos), false);
      if (verdict !== "wait") {
        if (verdict) this.ends.push(this.pos);
        this.afterBlank = false;
      }
      this.seen = text.length;
    }
    return extends_;
  }

  /** Where the unfinished last block starts. */
  get tailStart(): number {
    return this.ends.at(-1) ?? 0;
  }

  private reset() {
    this.pos = 0;
    this.seen = 0;
    this.fence = null;
    this.rawEnd = null;
    this.afterBlank = false;
    this.hasContent = false;
    this.ends = [];
  }

  private line(line: string, start: number) {
    if (this.fence) {
      if (closesFence(line, this.fence)) this.fence = null;
      return;
    }
    if (this.rawEnd) {
      if (this.rawEnd.test(line)) this.rawEnd = null;
      return;
    }
    if (line.trim() === "") {
      if (this.hasContent) this.afterBlank = true;
      return;
    }
    if (this.afterBlank && boundaryBefore(line, true) === true) this.ends.push(start);
    this.afterBlank = false;
    this.hasContent = true;
    this.fence = fenceOpened(line);
    if (!this.fence) this.rawEnd = rawHtmlEnd(line);
  }
}

/** The text cut into blocks: the finished ones, then the tail (possibly empty). */
export function splitBlocks(text: string): string[] {
  const scanner = new BlockScanner();
  scanner.feed(text);
  const starts = [0, ...scanner.ends];
  return starts.map((start, i) => text.slice(start, starts[i + 1] ?? text.length));
}

/** A block rendered on its own. */
interface Piece {
  html: string;
  /** It defines reference links, which blocks before and after it may use. */
  definesLinks: boolean;
  /** The blocks after it may render differently than alone: it ends in a fenced code block
   *  that does not close (so the block boundary after it is wrong: fences in list items can
   *  mislead BlockScanner), or in an HTML block (whose text runs on into the next block's, which
   *  may lose its leading white space rendered alone), or its raw HTML leaves an element open
   *  (the browser would put what follows inside that element). */
  openEnded: boolean;
}

/** Elements without content, which no end tag closes. */
const VOID_ELEMENTS = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]);
const TAG = /<(\/?)([a-z][a-z0-9-]*)[^>]*?(\/?)>/gi;

/** Whether raw HTML among the tokens opens an element it does not close. Errs towards yes: that
 *  only costs a whole render. */
function leavesHtmlOpen(tokens: TokensList): boolean {
  const open = new Map<string, number>();
  marked.walkTokens(tokens, (token) => {
    if (token.type !== "html") return;
    for (const [, close, name, selfClosing] of (token as Tokens.HTML).text.matchAll(TAG)) {
      const tag = name!.toLowerCase();
      if (VOID_ELEMENTS.has(tag) || selfClosing) continue;
      const depth = open.get(tag) ?? 0;
      open.set(tag, close ? Math.max(0, depth - 1) : depth + 1);
    }
  });
  return [...open.values()].some((depth) => depth > 0);
}

/** Whether a code token is a fenced code block without its closing fence (it ran to the end). */
function unclosedFence(token: Tokens.Code): boolean {
  const [first, ...rest] = token.raw.trimEnd().split("\n");
  const fence = fenceOpened(first!);
  return fence !== null && !(rest.length > 0 && closesFence(rest.at(-1)!, fence));
}

function renderPiece(text: string): Piece {
  const tokens = marked.lexer(text);
  const html = sanitize(marked.parser(tokens));
  const last = tokens.filter((t) => t.type !== "space").at(-1);
  const openEnded = last?.type === "html" || (last?.type === "code" && unclosedFence(last as Tokens.Code)) || leavesHtmlOpen(tokens);
  return { html, definesLinks: Object.keys(tokens.links).length > 0, openEnded };
}

// Finished blocks by their text: shared by every message and by find in conversation.
const blockCache = new Lru<Piece>(4000);

function cachedPiece(text: string): Piece {
  let piece = blockCache.get(text);
  if (piece === undefined) {
    piece = renderPiece(text);
    blockCache.set(text, piece);
  }
  return piece;
}

/** A finished block's HTML: rendered (parsed, highlighted, sanitised) once for a given text. */
export function renderBlock(text: string): string {
  return cachedPiece(text).html;
}

/** One rendered piece of a message. */
export interface MarkdownPart {
  source: string;
  html: string;
}

/**
 * A streaming message's rendering, kept between updates: the parts of finished blocks stay the
 * same objects, so a keyed list of them re-renders only the tail.
 */
export class MarkdownStream {
  private scanner = new BlockScanner();
  private done: MarkdownPart[] = [];
  private tail: MarkdownPart | null = null;

  update(text: string): MarkdownPart[] {
    if (!this.scanner.feed(text)) this.done = [];
    const ends = this.scanner.ends;
    for (let i = this.done.length; i < ends.length; i++) {
      const source = text.slice(i === 0 ? 0 : ends[i - 1], ends[i]);
      this.done.push({ source, html: renderBlock(source) });
    }
    const source = text.slice(this.scanner.tailStart);
    if (this.tail?.source !== source) this.tail = { source, html: renderMarkdown(source) };
    return [...this.done, this.tail];
  }
}

// A virtualised conversation mounts a message again each time it scrolls back into view: its
// parts are kept rather than looked up block by block.
const messageCache = new Lru<MarkdownPart[]>(300);

/**
 * A complete message's rendering: its blocks, each rendered once for a given text (so those a
 * stream rendered are reused), or the whole text as one part when its blocks would not render
 * alone as they do within the message (see `Piece`). Joined, the parts' HTML is what
 * `renderMarkdown` makes of the whole text.
 */
export function renderMessage(text: string): MarkdownPart[] {
  let parts = messageCache.get(text);
  if (parts === undefined) {
    const blocks = splitBlocks(text);
    const pieces = blocks.map(cachedPiece);
    // What follows the last block is nothing, as alone; a message of one block is whole anyway.
    const fit = pieces.length === 1 || pieces.every((p, i) => !p.definesLinks && !(p.openEnded && i < pieces.length - 1));
    parts = fit ? blocks.map((source, i) => ({ source, html: pieces[i]!.html })) : [{ source: text, html: renderMarkdown(text) }];
    messageCache.set(text, parts);
  }
  return parts;
}
