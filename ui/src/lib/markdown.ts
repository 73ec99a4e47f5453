// Markdown for model output. The model's text is untrusted: Markdown is rendered first, then the
// HTML is sanitised with DOMPurify, so nothing (raw HTML in the Markdown included) reaches the DOM
// unsanitised. Links are kept as text-bearing anchors but never navigate by themselves
// (MarkdownView cancels clicks); only http(s) and mailto URLs survive.
import DOMPurify from "dompurify";
import { Marked, type Tokens } from "marked";
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

// A virtualised conversation mounts a message again each time it scrolls back into view: its
// HTML is kept rather than parsed, highlighted and sanitised again.
const wholeCache = new Lru<string>(300);

/** `renderMarkdown`, remembered for the texts rendered lately. */
export function renderMarkdownCached(text: string): string {
  let html = wholeCache.get(text);
  if (html === undefined) {
    html = renderMarkdown(text);
    wholeCache.set(text, html);
  }
  return html;
}

// ---------------------------------------------------------------------------------------------
// Streaming. Rendering a growing message whole on every frame costs its size each time (size²
// over the stream). Instead the text is cut into blocks at boundaries later text cannot move,
// each finished block is rendered once (and kept by its text), and only the growing tail block is
// rendered again. Once the message is complete it is rendered whole, as `renderMarkdown` does.

/** A fence opening or closing a code block: up to three spaces, then ``` or ~~~ (or longer). */
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
/** A list item's marker, which a blank line before does not end the list at. */
const LIST_ITEM = /^(?:[*+-]|\d{1,9}[.)])(?:[ \t]|$)/;
/** The start of a line that may still turn out to be a list item's marker. */
const MAYBE_LIST_ITEM = /^(?:[*+-]|\d{1,9}[.)]?)$/;

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
 * blank line outside fenced code and passes `boundaryBefore`. Once found it never moves: later
 * text cannot change how the blocks before it render. Fed a longer text that keeps what was
 * looked at, it resumes where it stopped.
 */
export class BlockScanner {
  private text = "";
  /** Where the next unscanned line starts. */
  private pos = 0;
  /** How much of the text the findings depend on (a little past `pos` once an unfinished line
   *  was judged). */
  private seen = 0;
  private fence: { char: string; length: number } | null = null;
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
    this.afterBlank = false;
    this.hasContent = false;
    this.ends = [];
  }

  private line(line: string, start: number) {
    if (this.fence) {
      const m = FENCE.exec(line);
      const closes = m && m[1]![0] === this.fence.char && m[1]!.length >= this.fence.length && m[2]!.trim() === "";
      if (closes) this.fence = null;
      return;
    }
    if (line.trim() === "") {
      if (this.hasContent) this.afterBlank = true;
      return;
    }
    if (this.afterBlank && boundaryBefore(line, true) === true) this.ends.push(start);
    this.afterBlank = false;
    this.hasContent = true;
    const m = FENCE.exec(line);
    // A backtick fence's info string may not hold a backtick (that line is inline code instead).
    if (m && !(m[1]![0] === "`" && m[2]!.includes("`"))) this.fence = { char: m[1]![0]!, length: m[1]!.length };
  }
}

/** The text cut into blocks: the finished ones, then the tail (possibly empty). */
export function splitBlocks(text: string): string[] {
  const scanner = new BlockScanner();
  scanner.feed(text);
  const starts = [0, ...scanner.ends];
  return starts.map((start, i) => text.slice(start, starts[i + 1] ?? text.length));
}

// Finished blocks by their text: shared by every message and by find in conversation.
const blockCache = new Lru<string>(4000);

/** A finished block's HTML: rendered (parsed, highlighted, sanitised) once for a given text. */
export function renderBlock(text: string): string {
  let html = blockCache.get(text);
  if (html === undefined) {
    html = renderMarkdown(text);
    blockCache.set(text, html);
  }
  return html;
}

/** One rendered piece of a streaming message. */
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
