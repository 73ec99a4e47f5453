// Find in conversation, the pure part: which texts of the conversation are searched (from the
// view state, not the DOM, so rows a virtualised list has not rendered count too), the search
// itself, and marking the matches in the HTML the components render.
import type { ConversationState, Item } from "./conversation/types";
import type { LoadedOutput } from "./conversation/persisted.svelte";
import { renderBlock, renderMarkdown, renderMessage, sanitize, splitBlocks } from "./markdown";
import { isCommandDisplay, terminalText } from "./commandOutput";

/** One searchable text, as it is shown. Ids say where: `u:`/`a:`/`t:`/`n:` + item key (prompt,
 *  assistant text, thinking, notice), `s:`/`o:`/`p:` + call id (summary, live output, loaded saved
 *  output), `r:` + call id + `:` + block index (a result's text block), or + `:terminal` (a
 *  command's output shown as the terminal did, in place of its text blocks). A command's output
 *  is searched as it shows, without its escapes. */
export interface FindSource {
  id: string;
  text: string;
}

/** The matches of one source: where each starts in its text. */
export interface SourceMatches {
  id: string;
  starts: number[];
  /** Index of its first match among all matches. */
  first: number;
}

export interface FindResults {
  query: string;
  caseSensitive: boolean;
  /** Matches found (at most MAX_MATCHES). */
  total: number;
  /** The search stopped at MAX_MATCHES. */
  capped: boolean;
  sources: SourceMatches[];
  byId: Map<string, SourceMatches>;
}

/** What one component marks: its matches (all as long as the query) and which is the current. */
export interface Hits {
  starts: number[];
  length: number;
  /** Index into `starts` of the current match, -1 when it is elsewhere. */
  current: number;
  /** Changes whenever the user moves to a match here: the component brings it into view. */
  reveal: number;
}

/** More matches than this are not counted (typing one letter over megabytes of output). */
export const MAX_MATCHES = 100_000;

export const NO_RESULTS: FindResults = {
  query: "",
  caseSensitive: false,
  total: 0,
  capped: false,
  sources: [],
  byId: new Map(),
};

/** The texts of the conversation in the order they are shown. */
export function conversationSources(state: ConversationState, outputs: Record<string, LoadedOutput> = {}): FindSource[] {
  const out: FindSource[] = [];
  for (const item of state.items) {
    switch (item.kind) {
      case "user":
        out.push({ id: `u:${item.key}`, text: item.text });
        break;
      case "assistant":
        if (item.thinking) out.push({ id: `t:${item.key}`, text: item.thinking });
        // A streaming message shows block by block (see MarkdownStream): searched as it shows.
        if (item.text) out.push({ id: `a:${item.key}`, text: item.streaming ? streamingMarkdownText(item.text) : markdownText(item.text) });
        break;
      case "notice":
        out.push({ id: `n:${item.key}`, text: item.text });
        break;
      case "batch":
        for (const id of item.tool_ids) {
          const call = state.tools.get(id);
          if (!call) continue;
          out.push({ id: `s:${id}`, text: call.summary });
          if (call.status === "executing" && call.output_tail.length) {
            out.push({ id: `o:${id}`, text: terminalText(call.output_tail.join("\n")) });
          }
          const saved = call.persisted_path ? outputs[call.persisted_path] : undefined;
          if (saved && saved.loaded > 0) out.push({ id: `p:${id}`, text: saved.text });
          if (call.content && isCommandDisplay(call.display)) {
            out.push({ id: `r:${id}:terminal`, text: terminalText(call.display.terminal) });
          } else {
            call.content?.forEach((block, i) => {
              if (block.type === "text") out.push({ id: `r:${id}:${i}`, text: block.text });
            });
          }
        }
        break;
    }
  }
  return out;
}

/** The text a rendered Markdown message shows (what the user can find in it). Kept for as many
 *  messages as a day-long session has: every search goes through all of them. */
const markdownCache = new Map<string, string>();
export function markdownText(markdown: string): string {
  const hit = markdownCache.get(markdown);
  if (hit !== undefined) return hit;
  // Part by part, as MarkdownView counts its matches' offsets.
  const text = renderMessage(markdown).map((part) => htmlText(part.html)).join("");
  if (markdownCache.size >= 5000) markdownCache.delete(markdownCache.keys().next().value!);
  markdownCache.set(markdown, text);
  return text;
}

/** The text of a finished block of a streaming message (blocks recur: kept like markdownText). */
const blockTextCache = new Map<string, string>();
export function blockText(block: string): string {
  const hit = blockTextCache.get(block);
  if (hit !== undefined) return hit;
  const text = htmlText(renderBlock(block));
  if (blockTextCache.size >= 4000) blockTextCache.delete(blockTextCache.keys().next().value!);
  blockTextCache.set(block, text);
  return text;
}

/** The text a streaming message shows: its finished blocks', then its tail's. */
export function streamingMarkdownText(markdown: string): string {
  const blocks = splitBlocks(markdown);
  const tail = blocks.pop() ?? "";
  return blocks.map(blockText).join("") + htmlText(renderMarkdown(tail));
}

/** The text content of sanitised HTML. */
export function htmlText(html: string): string {
  return parseHtml(html).textContent ?? "";
}

/** The matches that fall in `[from, to)` of a text, as offsets from `from` (a piece of a message
 *  rendered on its own marks its own); null when none does. */
export function sliceHits(hits: Hits, from: number, to: number): Hits | null {
  const starts: number[] = [];
  let current = -1;
  for (let i = 0; i < hits.starts.length; i++) {
    const start = hits.starts[i]!;
    if (start >= to) break;
    if (start + hits.length <= from) continue;
    if (i === hits.current) current = starts.length;
    starts.push(start - from);
  }
  return starts.length ? { starts, length: hits.length, current, reveal: hits.reveal } : null;
}

/** The key of the item that shows a source (a call's texts show in its batch), or null. */
export function itemKeyOf(sourceId: string, items: Item[]): string | null {
  const colon = sourceId.indexOf(":");
  const kind = sourceId.slice(0, colon);
  const rest = sourceId.slice(colon + 1);
  if (kind === "u" || kind === "a" || kind === "t" || kind === "n") return rest;
  // A result block's id ends in its index: `r:<call id>:<index>`.
  return batchKeyOf(kind === "r" ? rest.slice(0, rest.lastIndexOf(":")) : rest, items);
}

/** The key of the batch item holding a call, or null. */
export function batchKeyOf(callId: string, items: Item[]): string | null {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.kind === "batch" && item.tool_ids.includes(callId)) return item.key;
  }
  return null;
}

function parseHtml(html: string): DocumentFragment {
  const template = document.createElement("template");
  template.innerHTML = html;
  return template.content;
}

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Where `query` occurs in `text`, at most `limit` times. Without the `u` flag, case folding maps
 *  one code unit to one, so every match is exactly as long as the query. */
export function matchStarts(text: string, query: string, caseSensitive: boolean, limit = MAX_MATCHES): number[] {
  const starts: number[] = [];
  if (!query || limit <= 0) return starts;
  if (caseSensitive) {
    for (let at = text.indexOf(query); at >= 0 && starts.length < limit; at = text.indexOf(query, at + query.length)) starts.push(at);
    return starts;
  }
  const re = new RegExp(escapeRegExp(query), "gi");
  let m: RegExpExecArray | null;
  while (starts.length < limit && (m = re.exec(text)) !== null) starts.push(m.index);
  return starts;
}

/** Searches every source. `cache` keeps each source's matches between searches, so a search
 *  run again while output streams only scans the texts that changed. */
export function findAll(
  sources: FindSource[],
  query: string,
  caseSensitive: boolean,
  cache?: Map<string, { text: string; query: string; caseSensitive: boolean; starts: number[] }>,
  limit = MAX_MATCHES,
): FindResults {
  if (!query) return NO_RESULTS;
  const found: SourceMatches[] = [];
  const byId = new Map<string, SourceMatches>();
  let total = 0;
  let capped = false;
  const seen = new Set<string>();
  for (const source of sources) {
    seen.add(source.id);
    const room = limit - total;
    if (room <= 0) {
      capped = true;
      break;
    }
    const cached = cache?.get(source.id);
    let starts: number[];
    if (cached && cached.text === source.text && cached.query === query && cached.caseSensitive === caseSensitive) {
      starts = cached.starts;
    } else {
      // One more than fits, so that reaching the limit inside one text still says "capped".
      starts = matchStarts(source.text, query, caseSensitive, limit + 1);
      cache?.set(source.id, { text: source.text, query, caseSensitive, starts });
    }
    if (starts.length > room) {
      starts = starts.slice(0, room);
      capped = true;
    }
    if (!starts.length) continue;
    const entry = { id: source.id, starts, first: total };
    found.push(entry);
    byId.set(source.id, entry);
    total += starts.length;
  }
  if (cache) for (const id of cache.keys()) if (!seen.has(id)) cache.delete(id);
  return { query, caseSensitive, total, capped, sources: found, byId };
}

/** The source and the index within it of match number `index`. */
export function locate(results: FindResults, index: number): { source: SourceMatches; local: number } | null {
  if (index < 0 || index >= results.total) return null;
  let lo = 0;
  let hi = results.sources.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (results.sources[mid]!.first <= index) lo = mid;
    else hi = mid - 1;
  }
  const source = results.sources[lo]!;
  return { source, local: index - source.first };
}

/** "3 of 12"; "0 of 0" without matches; a capped count says so. */
export function countLabel(results: FindResults, current: number): string {
  const total = `${results.total.toLocaleString("en-US")}${results.capped ? "+" : ""}`;
  return `${current >= 0 ? (current + 1).toLocaleString("en-US") : 0} of ${total}`;
}

// ---------------------------------------------------------------------------------------------
// Marking. A match is wrapped in <mark class="find-hit">, the current one also has "find-current".

const openMark = (current: boolean) => (current ? '<mark class="find-hit find-current">' : '<mark class="find-hit">');

/** Plain text split into runs, the matched ones flagged (for text Svelte renders itself). */
export interface Run {
  text: string;
  hit: boolean;
  current: boolean;
}

export function textRuns(text: string, hits: Hits): Run[] {
  const runs: Run[] = [];
  let at = 0;
  hits.starts.forEach((start, i) => {
    if (start > at) runs.push({ text: text.slice(at, start), hit: false, current: false });
    runs.push({ text: text.slice(start, start + hits.length), hit: true, current: i === hits.current });
    at = start + hits.length;
  });
  if (at < text.length) runs.push({ text: text.slice(at), hit: false, current: false });
  return runs;
}

/**
 * Marks matches in HTML made of escaped text and simple tags (highlight.js output, escapeHtml):
 * offsets count the text's characters, an entity being one. A mark never spans a tag: it is
 * closed before one and opened again after it.
 */
export function markEscapedHtml(html: string, hits: Hits): string {
  const { starts, length } = hits;
  if (!starts.length) return html;
  let out = "";
  let t = 0; // offset in the text
  let h = 0; // next (or open) match
  let open = false;
  let i = 0;
  while (i < html.length) {
    const c = html[i]!;
    if (c === "<") {
      let j = i + 1;
      let quote = "";
      while (j < html.length) {
        const d = html[j]!;
        if (quote) {
          if (d === quote) quote = "";
        } else if (d === '"' || d === "'") quote = d;
        else if (d === ">") break;
        j++;
      }
      const tag = html.slice(i, j + 1);
      out += open ? `</mark>${tag}${openMark(h === hits.current)}` : tag;
      i = j + 1;
      continue;
    }
    let j = i + 1;
    if (c === "&") {
      const semi = html.indexOf(";", i);
      if (semi > i && semi - i <= 10) j = semi + 1;
    }
    if (!open && h < starts.length && t === starts[h]) {
      out += openMark(h === hits.current);
      open = true;
    }
    out += html.slice(i, j);
    i = j;
    t++;
    if (open && t === starts[h]! + length) {
      out += "</mark>";
      open = false;
      h++;
    }
  }
  if (open) out += "</mark>";
  return out;
}

/** Marks matches in sanitised HTML of any shape (rendered Markdown), through a detached DOM, and
 *  sanitises the result again. Offsets are those of the HTML's text content (`markdownText`). */
export function markHtml(html: string, hits: Hits): string {
  if (!hits.starts.length) return html;
  const root = parseHtml(html);
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes: Text[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n as Text);
  let offset = 0;
  let h = 0;
  const { starts, length } = hits;
  for (const node of nodes) {
    const text = node.data;
    const end = offset + text.length;
    // Skip matches that ended before this node.
    while (h < starts.length && starts[h]! + length <= offset) h++;
    let k = h;
    const pieces: (string | { text: string; current: boolean })[] = [];
    let at = 0;
    while (k < starts.length && starts[k]! < end) {
      const from = Math.max(starts[k]!, offset) - offset;
      const to = Math.min(starts[k]! + length, end) - offset;
      if (from > at) pieces.push(text.slice(at, from));
      pieces.push({ text: text.slice(from, to), current: k === hits.current });
      at = to;
      if (starts[k]! + length > end) break; // continues in the next node
      k++;
    }
    if (pieces.length) {
      if (at < text.length) pieces.push(text.slice(at));
      const frag = document.createDocumentFragment();
      for (const p of pieces) {
        if (typeof p === "string") frag.append(p);
        else {
          const mark = document.createElement("mark");
          mark.className = p.current ? "find-hit find-current" : "find-hit";
          mark.textContent = p.text;
          frag.append(mark);
        }
      }
      node.replaceWith(frag);
    }
    offset = end;
  }
  const holder = document.createElement("div");
  holder.append(root);
  return sanitize(holder.innerHTML);
}

/** Where each line starts in the text the lines were split from (by "\n"). */
export function lineStartsOf(lines: string[]): Int32Array {
  const starts = new Int32Array(lines.length);
  let at = 0;
  for (let i = 0; i < lines.length; i++) {
    starts[i] = at;
    at += lines[i]!.length + 1;
  }
  return starts;
}

/** The line holding text offset `offset`. */
export function lineAt(lineStarts: Int32Array, offset: number): number {
  let lo = 0;
  let hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lineStarts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The line of each match (ascending, as the matches are). */
export function matchLines(lineStarts: Int32Array, starts: number[]): Int32Array {
  const lines = new Int32Array(starts.length);
  let line = 0;
  for (let k = 0; k < starts.length; k++) {
    while (line < lineStarts.length - 1 && lineStarts[line + 1]! <= starts[k]!) line++;
    lines[k] = line;
  }
  return lines;
}

function firstAtLeast(values: Int32Array, v: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (values[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The matches on one line (offsets within it), or null; found by binary search, so a row of a
 *  virtualised list costs the same with ten matches in the text or a hundred thousand. */
export function hitsOnLine(hits: Hits, lineStarts: Int32Array, lines: Int32Array, line: number): Hits | null {
  const from = firstAtLeast(lines, line);
  const to = firstAtLeast(lines, line + 1);
  if (from === to) return null;
  const base = lineStarts[line]!;
  return {
    starts: hits.starts.slice(from, to).map((s) => s - base),
    length: hits.length,
    current: hits.current >= from && hits.current < to ? hits.current - from : -1,
    reveal: hits.reveal,
  };
}
