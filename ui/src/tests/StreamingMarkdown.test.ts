// A long answer streaming in: its Markdown is cut into blocks that later text cannot change,
// each finished block is rendered (parsed, highlighted, sanitised) once, only the growing tail
// again, at most once per frame; the complete message is rendered whole, exactly as before.
import { afterEach, describe, expect, it, vi } from "vitest";
import { render, screen, waitFor } from "@testing-library/svelte";
import DOMPurify from "dompurify";
import hljs from "highlight.js/lib/core";
import MarkdownView from "../lib/components/MarkdownView.svelte";
import { findAll, markHtml, markdownText, streamingMarkdownText, type Hits } from "../lib/find";
import { BlockScanner, MarkdownStream, renderMarkdown, splitBlocks } from "../lib/markdown";

/** Text no earlier test rendered (rendered blocks are kept by their text, across messages). */
let serial = 0;
const fresh = (text: string) => `${text} (${++serial}-${Math.random().toString(36).slice(2)})`;

/** The view's HTML without the copy buttons mounted into code blocks afterwards. */
function shownHtml(testid = "md"): string {
  const root = screen.getByTestId(testid).cloneNode(true) as HTMLElement;
  root.querySelectorAll("[data-testid=copy-code]").forEach((b) => b.remove());
  return root.innerHTML;
}

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

  it("renders a complete message as the same HTML as before, whole", () => {
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
