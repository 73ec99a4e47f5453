// A long answer streaming in: its Markdown is cut into blocks that later text cannot change,
// each finished block is rendered (parsed, highlighted, sanitised) once, only the growing tail
// again, at most once per frame. A complete message is shown from the same blocks (completing a
// stream parses only its last block again, a loaded message is never parsed whole) and comes out
// as the same HTML as rendering it whole; where its blocks would not, it is rendered whole.
import { afterEach, describe, expect, it, vi } from "vitest";
import { render, screen, waitFor } from "@testing-library/svelte";
import DOMPurify from "dompurify";
import hljs from "highlight.js/lib/core";
import MarkdownView from "../lib/components/MarkdownView.svelte";
import { findAll, markHtml, markdownText, streamingMarkdownText, type Hits } from "../lib/find";
import { Lexer } from "marked";
import { BlockScanner, MarkdownStream, renderMarkdown, renderMessage, splitBlocks } from "../lib/markdown";

/** Text no earlier test rendered (rendered blocks are kept by their text, across messages). */
let serial = 0;
const fresh = (text: string) => `${text} (${++serial}-${Math.random().toString(36).slice(2)})`;

/** The view's HTML as laid out: without the copy buttons mounted into code blocks afterwards, nor
 *  the blocks' own elements (`display: contents`). */
function shownHtml(testid = "md"): string {
  const root = screen.getByTestId(testid).cloneNode(true) as HTMLElement;
  root.querySelectorAll("[data-testid=copy-code]").forEach((b) => b.remove());
  root.querySelectorAll(".md-block").forEach((b) => b.replaceWith(...b.childNodes));
  return root.innerHTML;
}

/** The view's block elements. */
const shownBlocks = (testid = "md") => [...screen.getByTestId(testid).querySelectorAll(":scope > .md-block")];

const frame = () => new Promise((r) => requestAnimationFrame(() => r(null)));

const ANSWER = [
  "# Plan",
  "",
  "First we read the **files** and `grep` for the *callers*:",
  "",
  "- `src/main.rs` — the entry point",
  "- `src/lib.rs`",
  "",
  "  with a second paragraph in the item",
  "",
  "1. one",
  "",
  "2. two",
  "",
  "```rust",
  "fn main() {",
  "",
  '    println!("<b>hi</b>");',
  "}",
  "```",
  "",
  "| a | b |",
  "|---|---|",
  "| 1 | 2 |",
  "",
  "> quoted",
  "",
  "    indented code",
  "",
  "    more of it",
  "",
  'Raw <span onclick="x()">html</span> and [a link](https://example.com) and [ref][r].',
  "",
  "[r]: https://example.org",
  "",
  "~~~",
  "tilde fence with ``` inside",
  "",
  "~~~",
  "Done.",
].join("\n");

describe("cutting a streaming message into blocks", () => {
  it("cuts at blank lines outside fenced code, never before an indented line or a list item", () => {
    expect(splitBlocks("a\n\nb\n\nc")).toEqual(["a\n\n", "b\n\n", "c"]);
    expect(splitBlocks("```\nx\n\ny\n```\n\nz\n")).toEqual(["```\nx\n\ny\n```\n\n", "z\n"]);
    expect(splitBlocks("- a\n\n- b\n\n  more\n\nafter\n")).toEqual(["- a\n\n- b\n\n  more\n\n", "after\n"]);
    expect(splitBlocks("1. a\n\n2. b\n")).toEqual(["1. a\n\n2. b\n"]);
    expect(splitBlocks("    code\n\n    code\n")).toEqual(["    code\n\n    code\n"]);
    // A line is only judged once complete: "-" may yet become a list item.
    expect(splitBlocks("a\n\n-")).toEqual(["a\n\n-"]);
    expect(splitBlocks("")).toEqual([""]);
  });

  it("does not cut HTML blocks that run on past blank lines", () => {
    expect(splitBlocks("<!-- a\n\nb -->\n\nc\n")).toEqual(["<!-- a\n\nb -->\n\n", "c\n"]);
    expect(splitBlocks("<pre>\nx\n\ny\n</pre>\n\nc\n")).toEqual(["<pre>\nx\n\ny\n</pre>\n\n", "c\n"]);
    expect(splitBlocks("<?php\n\n?>\n\nc")).toEqual(["<?php\n\n?>\n\n", "c"]);
    // Closed on its own line, or not one of those: cut as before.
    expect(splitBlocks("<!-- a -->\n\nb")).toEqual(["<!-- a -->\n\n", "b"]);
    expect(splitBlocks("<div>\n\nb")).toEqual(["<div>\n\n", "b"]);
  });

  it("finds the same blocks fed piece by piece as all at once, whatever the pieces", () => {
    for (const step of [1, 3, 17]) {
      const scanner = new BlockScanner();
      for (let end = 0; end <= ANSWER.length; end += step) {
        const prefix = ANSWER.slice(0, end);
        scanner.feed(prefix);
        const whole = splitBlocks(prefix);
        expect(whole.slice(0, -1).map((b) => b.length)).toEqual(scanner.ends.map((e, i) => e - (scanner.ends[i - 1] ?? 0)));
      }
    }
    // Text that does not extend what was scanned (the final message replaced lossy deltas).
    const scanner = new BlockScanner();
    scanner.feed("a\n\nb\n\nc");
    expect(scanner.feed("x\n\ny")).toBe(false);
    expect(scanner.ends).toEqual([3]);
  });
});

describe("MarkdownView", () => {
  afterEach(() => vi.restoreAllMocks());

  it("renders a complete message as the same HTML as rendering it whole", () => {
    render(MarkdownView, { text: ANSWER, testid: "md" });
    expect(shownHtml()).toBe(renderMarkdown(ANSWER));
    expect(screen.getAllByTestId("copy-code")).toHaveLength(3);
  });

  it("ends a stream with the same HTML as a message that never streamed", async () => {
    const view = render(MarkdownView, { text: ANSWER.slice(0, 200), testid: "md", streaming: true });
    await view.rerender({ text: ANSWER, streaming: true });
    await frame();
    await view.rerender({ text: ANSWER, streaming: false });
    expect(shownHtml()).toBe(renderMarkdown(ANSWER));
    // With find's marks too: the same marking of the same HTML.
    const text = markdownText(ANSWER);
    const found = findAll([{ id: "a", text }], "the", false);
    const hits: Hits = { starts: found.sources[0]!.starts, length: 3, current: 1, reveal: 1 };
    await view.rerender({ text: ANSWER, streaming: false, hits });
    expect(shownHtml()).toBe(markHtml(renderMarkdown(ANSWER), hits));
  });

  it("renders a finished block once: a growing tail re-renders only itself", async () => {
    const sanitize = vi.spyOn(DOMPurify, "sanitize");
    const highlight = vi.spyOn(hljs, "highlight");
    const head = fresh("# Title\n\nFirst paragraph") + "\n\n```rust\nfn main() {}\n```\n\n";
    const view = render(MarkdownView, { text: `${head}The tail`, testid: "md", streaming: true });
    // Three finished blocks and the tail, each rendered on its own.
    expect(sanitize).toHaveBeenCalledTimes(4);
    expect(highlight).toHaveBeenCalledTimes(1);
    const blocks = screen.getByTestId("md").querySelectorAll(":scope > .md-block");
    expect(blocks).toHaveLength(4);
    const finished = [...blocks].slice(0, 3);

    for (const more of [" grows", " grows and grows", " grows and grows.\n\nA new block"]) {
      sanitize.mockClear();
      await frame();
      await view.rerender({ text: `${head}The tail${more}`, streaming: true });
      await frame();
      const rendered = sanitize.mock.calls.map((c) => String(c[0]));
      // Only the tail (and, once it is finished, the block it became) is rendered again.
      expect(rendered.every((html) => !html.includes("First paragraph") && !html.includes("fn main"))).toBe(true);
      expect(rendered.length).toBeLessThanOrEqual(2);
      expect(highlight).toHaveBeenCalledTimes(1);
      // The finished blocks' DOM is left alone.
      const now = [...screen.getByTestId("md").querySelectorAll(":scope > .md-block")];
      expect(now.slice(0, 3)).toEqual(finished);
    }
    expect(screen.getByTestId("md").textContent).toContain("A new block");
    // The code block kept its copy button through all of it.
    expect(screen.getAllByTestId("copy-code")).toHaveLength(1);
  });

  it("renders the tail at most once per frame, the latest text", async () => {
    const head = fresh("Intro") + "\n\n";
    const view = render(MarkdownView, { text: `${head}t`, testid: "md", streaming: true });
    const sanitize = vi.spyOn(DOMPurify, "sanitize");
    for (let i = 1; i <= 5; i++) await view.rerender({ text: `${head}t${"x".repeat(i)}`, streaming: true });
    expect(sanitize.mock.calls.length).toBeLessThanOrEqual(1);
    await waitFor(() => expect(screen.getByTestId("md").textContent).toContain("txxxxx"));
    expect(sanitize.mock.calls.length).toBeLessThanOrEqual(2);
  });

  it("marks find's matches in a streaming message, block by block", async () => {
    const text = fresh("A needle here") + "\n\n- needle in a list\n\n```\nneedle in code\n```\n\nand a needle in the tail";
    const shown = streamingMarkdownText(text);
    const found = findAll([{ id: "a", text: shown }], "needle", false);
    expect(found.total).toBe(4);
    const hits: Hits = { starts: found.sources[0]!.starts, length: 6, current: 2, reveal: 1 };
    render(MarkdownView, { text, testid: "md", streaming: true, hits });
    const marks = [...screen.getByTestId("md").querySelectorAll("mark.find-hit")];
    expect(marks.map((m) => m.textContent)).toEqual(["needle", "needle", "needle", "needle"]);
    expect(marks.map((m) => m.classList.contains("find-current"))).toEqual([false, false, true, false]);
    expect(marks[2]!.closest("pre")).not.toBeNull();
    // What find searched is what the view shows.
    expect(screen.getByTestId("md").textContent!.replace(/Copy/g, "")).toBe(shown);
  });
});

describe("MarkdownStream", () => {
  it("keeps the parts of finished blocks as the same objects", () => {
    const stream = new MarkdownStream();
    const text = fresh("one") + "\n\ntwo\n\nthr";
    const first = stream.update(text);
    const second = stream.update(`${text}ee`);
    expect(second.slice(0, 2)).toEqual(first.slice(0, 2));
    expect(second[0]).toBe(first[0]);
    expect(second[1]).toBe(first[1]);
    expect(second[2]!.html).toBe(renderMarkdown("three"));
    expect(first.map((p) => p.source).join("")).toBe(text);
  });
});

/** A long answer made of the blocks a model writes: headings, paragraphs, lists with blank lines
 *  between items, fenced code with blank lines inside, tables, quotes. `tag` makes every block's
 *  text one no other test rendered. */
function longAnswer(tag: string, sections = 90): string {
  const out: string[] = [];
  for (let i = 0; i < sections; i++) {
    const id = `${tag}-${i}`;
    out.push(
      `## Step ${id}: read the *callers*`,
      "",
      `First we read the **files** of ${id} and \`grep\` for the callers. The change keeps [the docs](https://example.com/${id}) in step with the code, and the tests cover both paths.`,
      "",
      `- \`src/${id}.rs\` — the entry point`,
      "",
      "- the parser",
      "",
      `  with a second paragraph in the item (${id})`,
      "",
      `1. one ${id}`,
      "2. two",
      "",
      "```rust",
      `fn step() -> &'static str { // ${id}`,
      '    let id = "<b>id</b>";',
      "",
      "    id",
      "}",
      "```",
      "",
      "| file | lines |",
      "|---|---|",
      `| ${id}.rs | ${i * 7} |`,
      "| lib.rs | 12 |",
      "",
      `> Nothing else changes in ${id}.`,
      "",
    );
  }
  out.push(`Done (${tag}).`);
  return out.join("\n");
}

/** Every Markdown text marked parses from now on (a spy on its lexer, passing through). */
const spyParses = () => {
  const lex = vi.spyOn(Lexer, "lex");
  return () => lex.mock.calls.map((c) => c[0]);
};

/** A seeded stream of small pieces of a text (1 to 80 characters). */
function deltas(text: string, seed = 7): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; ) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const end = Math.min(text.length, at + 1 + (seed % 80));
    out.push(text.slice(at, end));
    at = end;
  }
  return out;
}

describe("a complete message, block by block", () => {
  afterEach(() => vi.restoreAllMocks());

  it("comes out as the same HTML as rendering it whole, or is rendered whole", () => {
    const CASES: Record<string, string> = {
      paragraphs: "a *b*\n\nc\n\n\n\nd\n",
      looseList: "- a\n\n- b\n\n  more\n\nafter\n",
      listThenParagraph: "- a\n- b\n\npara\n",
      orderedRestart: "1. a\n\ntext\n\n2. b\n",
      fence: "```\nx\n\ny\n```\n\nz\n",
      fenceInList: "1. a\n\n   ```sh\n   x\n\n   y\n   ```\n\n2. b\n\nc\n",
      table: "| a | b |\n|---|---|\n| 1 | 2 |\n\nafter\n",
      indentedCode: "para\n\n    code\n\n    more\n\nz\n",
      quotes: "> a\n\n> b\n",
      setext: "a\n\n---\n\nb\n===\n",
      inlineHtml: "a<br>b <kbd>C</kbd>\n\nc\n",
      htmlLast: "a\n\n<div>x</div>\n",
      // Whole: a reference defined in one block and used in another, ...
      reference: "see [x][r]\n\n[r]: https://example.org\n",
      // ... raw HTML that leaves an element open over the blocks after it, ...
      details: "<details><summary>More</summary>\n\n*hidden*\n\n</details>\n\nafter\n",
      openBold: "<b>bold\n\nstill</b>\n\nafter\n",
      // ... an HTML block before another block (which may keep white space after it as text), ...
      comment: "x\n\n<!-- a\n\nb -->\n\nafter\n",
      pre: "<pre>\nfoo\n\nbar\n</pre>\n\nafter\n",
      // ... and a fence a list item closed, which misleads the cutting: the ``` after it opens a
      // code block BlockScanner takes for a closing fence.
      fenceClosedByItem: "- a\n  ~~~\n  b\n\n* * *\n```\n~~~\n\nstill code\n```\n",
    };
    const whole = ["reference", "details", "openBold", "comment", "pre", "fenceClosedByItem"];
    const got = Object.fromEntries(
      Object.entries(CASES).map(([name, text]) => {
        const parts = renderMessage(text);
        return [name, { parts: parts.map((p) => p.source), html: parts.map((p) => p.html).join("") }];
      }),
    );
    const expected = Object.fromEntries(
      Object.entries(CASES).map(([name, text]) => [name, { parts: whole.includes(name) ? [text] : splitBlocks(text), html: renderMarkdown(text) }]),
    );
    expect(got).toEqual(expected);
  });

  it("completes a long stream with the HTML of rendering it whole, parsing only its last block again", async () => {
    const text = longAnswer(fresh("stream"));
    expect(text.length).toBeGreaterThanOrEqual(60_000);
    const wholeHtml = renderMarkdown(text);

    const view = render(MarkdownView, { text: "", testid: "md", streaming: true });
    let sent = "";
    for (const [i, delta] of deltas(text).entries()) {
      sent += delta;
      await view.rerender({ text: sent, streaming: true });
      if (i % 40 === 0) await frame();
    }
    await frame();
    const streamed = shownBlocks();
    const blocks = splitBlocks(text);
    expect(streamed).toHaveLength(blocks.length);

    const parsed = spyParses();
    await view.rerender({ text, streaming: false });
    // The finished blocks' HTML is reused: only the last block is parsed, and not the whole.
    expect(parsed()).toEqual([blocks.at(-1)]);
    expect(shownHtml()).toBe(wholeHtml);
    // Nothing had to change in the DOM either: the streamed blocks stay.
    expect(shownBlocks().every((block, i) => block === streamed[i])).toBe(true);
    expect(screen.getAllByTestId("copy-code")).toHaveLength(90);

    // Find marks the same matches, at the same places, as in the whole HTML.
    const found = findAll([{ id: "a", text: markdownText(text) }], "the", false);
    const hits: Hits = { starts: found.sources[0]!.starts, length: 3, current: 5, reveal: 1 };
    expect(hits.starts.length).toBeGreaterThan(300);
    await view.rerender({ text, streaming: false, hits });
    expect(shownHtml()).toBe(markHtml(wholeHtml, hits));
  }, 60_000);

  it("parses only the blocks the last frame had not finished when the stream ends at once", async () => {
    const head = longAnswer(fresh("late"), 3);
    const view = render(MarkdownView, { text: head, testid: "md", streaming: true });
    await frame();
    // The final text adds to the tail block and starts another: both are all that is parsed.
    const text = `${head} More of the tail.\n\nA last paragraph.`;
    const parsed = spyParses();
    await view.rerender({ text, streaming: false });
    expect(parsed()).toEqual(splitBlocks(text).slice(-2));
    expect(shownHtml()).toBe(renderMarkdown(text));
  });

  it("renders a loaded message block by block, and again from memory", () => {
    const text = longAnswer(fresh("loaded"));
    const wholeHtml = renderMarkdown(text);
    const parsed = spyParses();
    const first = render(MarkdownView, { text, testid: "md" });
    // Each block once (the table and code blocks repeat nowhere), never the whole text.
    expect(parsed()).toEqual(splitBlocks(text));
    expect(shownHtml()).toBe(wholeHtml);
    first.unmount();
    // Scrolled back into view: nothing is parsed again.
    render(MarkdownView, { text, testid: "md" });
    expect(parsed()).toHaveLength(splitBlocks(text).length);
    expect(shownHtml()).toBe(wholeHtml);
  });

  it("renders a message whose reference link is defined in another block whole", async () => {
    const text = `${fresh("See [the docs][d] first.")}\n\nThen the rest.\n\n[d]: https://example.org/docs\n`;
    const view = render(MarkdownView, { text, testid: "md", streaming: true });
    const parsed = spyParses();
    await view.rerender({ text, streaming: false });
    // The last block, new, is found to define a link: then the whole text.
    expect(parsed()).toEqual([splitBlocks(text).at(-1), text]);
    expect(shownHtml()).toBe(renderMarkdown(text));
    expect(screen.getByTestId("md").querySelector("a")?.getAttribute("href")).toBe("https://example.org/docs");
  });
});
