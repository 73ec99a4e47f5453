// A command's output as a terminal shows it (lib/commandOutput.ts): the engine's CommandDisplay told
// apart from other displays, progress redraws collapsed to their last frame, colours as classes
// the theme colours, every other escape dropped, and never the output's own markup as HTML.
import { describe, expect, it } from "vitest";
import type { CommandDisplay } from "../bindings/CommandDisplay";
import { htmlText, markEscapedHtml } from "../lib/find";
import { collapseCarriageReturns, isCommandDisplay, terminalLines, terminalText } from "../lib/commandOutput";

const ESC = "\u001b";
const red = (s: string) => `${ESC}[31m${s}${ESC}[0m`;
/** The HTML of a text's lines, joined as a block shows them. */
const html = (text: string) =>
  terminalLines(text)
    .map((l) => l.html)
    .join("\n");
/** The HTML parsed, as a page would hold it. */
const dom = (text: string) => {
  const box = document.createElement("pre");
  box.innerHTML = html(text);
  return box;
};

describe("isCommandDisplay", () => {
  it("takes the engine's display of a command's output, and nothing else", () => {
    const display: CommandDisplay = { terminal: red("FAIL") };
    expect(isCommandDisplay(display)).toBe(true);
    expect(isCommandDisplay({ terminal: "" })).toBe(true);
    expect(isCommandDisplay(null)).toBe(false);
    expect(isCommandDisplay(undefined)).toBe(false);
    expect(isCommandDisplay("text")).toBe(false);
    expect(isCommandDisplay({ terminal: 3 })).toBe(false);
    expect(isCommandDisplay({ kind: "diff", hunks: [] })).toBe(false);
  });
});

describe("collapseCarriageReturns", () => {
  it("keeps each line's text after its last carriage return", () => {
    expect(collapseCarriageReturns("downloading  10%\rdownloading  55%\rdownloading 100%\ndone")).toBe("downloading 100%\ndone");
    expect(collapseCarriageReturns("\r[###   ]\r[######]")).toBe("[######]");
    expect(collapseCarriageReturns("no frames\nat all")).toBe("no frames\nat all");
  });

  it("takes a carriage return before a line feed, or at the end, as no new frame", () => {
    expect(collapseCarriageReturns("one\r\ntwo\r\n")).toBe("one\ntwo\n");
    // A frame drawn, the next one not yet come: the frame shows meanwhile.
    expect(collapseCarriageReturns("building 40%\r")).toBe("building 40%");
    expect(collapseCarriageReturns("a 1%\ra 2%\r")).toBe("a 2%");
  });

  it("keeps the colours a dropped frame set for the frame kept", () => {
    expect(collapseCarriageReturns(`${ESC}[32m 10%\r 20%${ESC}[0m`)).toBe(`${ESC}[32m 20%${ESC}[0m`);
  });
});

describe("terminalLines", () => {
  it("draws the 16 colours as classes the theme colours, bold and underline as styles", () => {
    const box = dom(`${red("error")}: ${ESC}[1mbold${ESC}[22m ${ESC}[4munder${ESC}[24m ${ESC}[92mok${ESC}[0m ${ESC}[44mbg${ESC}[0m`);
    expect(box.textContent).toBe("error: bold under ok bg");
    expect(box.querySelector(".ansi-red-fg")?.textContent).toBe("error");
    expect(box.querySelector(".ansi-bright-green-fg")?.textContent).toBe("ok");
    expect(box.querySelector(".ansi-blue-bg")?.textContent).toBe("bg");
    const spans = [...box.querySelectorAll("span")];
    expect(spans.find((s) => s.textContent === "bold")?.style.fontWeight).toBe("bold");
    expect(spans.find((s) => s.textContent === "under")?.style.textDecoration).toBe("underline");
    // No fixed colour for the basic ones: the page's theme decides.
    expect(spans.every((s) => s.style.color === "")).toBe(true);
  });

  it("keeps a 256-colour or true-colour shade as the command chose it", () => {
    const span = dom(`${ESC}[38;2;255;128;0morange${ESC}[0m`).querySelector("span")!;
    expect(span.textContent).toBe("orange");
    expect(span.style.color).toBe("rgb(255, 128, 0)");
  });

  it("shows the output's markup as text: nothing of it becomes an element", () => {
    const text = `<script>alert(1)</script>\n${red('<img src=x onerror="alert(2)">')}\n<a href="javascript:alert(3)">x</a> & "'`;
    const box = dom(text);
    expect(box.querySelector("script, img, a")).toBeNull();
    expect(box.textContent).toBe(`<script>alert(1)</script>\n<img src=x onerror="alert(2)">\n<a href="javascript:alert(3)">x</a> & "'`);
  });

  it("drops cursor moves, erases, titles and other escapes; a hyperlink keeps its text, not its link", () => {
    const text = [
      `${ESC}[2K${ESC}[1Gstep 1${ESC}[?25l`,
      `${ESC}]0;my title\u0007after the title`,
      `see ${ESC}]8;;https://example.com\u0007the docs${ESC}]8;;\u0007 here`,
      `${ESC}(Bcharset${ESC}7saved${ESC}8 bell\u0007 back\bspace`,
      `${ESC}[38:2:255:0:0mcolon form${ESC}[0m`,
    ].join("\n");
    const box = dom(text);
    expect(box.textContent).toBe("step 1\nafter the title\nsee the docs here\ncharsetsaved bell backspace\ncolon form");
    expect(box.querySelector("a")).toBeNull();
  });

  it("carries a colour on to the next lines until it is reset, so each line draws on its own", () => {
    const lines = terminalLines(`${ESC}[33mwarning: one\ntwo${ESC}[0m\nthree`);
    expect(lines.map((l) => l.text)).toEqual(["warning: one", "two", "three"]);
    const line = (i: number) => {
      const box = document.createElement("span");
      box.innerHTML = lines[i]!.html;
      return box;
    };
    expect(line(0).querySelector(".ansi-yellow-fg")?.textContent).toBe("warning: one");
    expect(line(1).querySelector(".ansi-yellow-fg")?.textContent).toBe("two");
    expect(line(2).querySelector("span")).toBeNull();
  });

  it("collapses progress redraws as it draws", () => {
    expect(terminalLines("  1/3\r  2/3\r  3/3\nok").map((l) => l.text)).toEqual(["  3/3", "ok"]);
  });
});

describe("terminalText", () => {
  it("is the text the HTML shows, so find's offsets fall on what is drawn", () => {
    const samples = [
      `${red("<b>")} & ${ESC}[1;4;38;5;202mpeach${ESC}[0m "quoted" 'single'`,
      `tab\there\n${ESC}]0;title\u0007x\n\r50%\r100%\n${ESC}[2Jcleared`,
      "plain text, no escapes",
    ];
    for (const sample of samples) expect(terminalText(sample)).toBe(htmlText(html(sample)));
    expect(terminalText("plain text, no escapes")).toBe("plain text, no escapes");
  });

  it("lets find mark a match inside the coloured spans, keeping their colours", () => {
    const text = `${red("error")}: cannot find ${ESC}[1mvalue${ESC}[0m`;
    const shown = terminalText(text);
    expect(shown).toBe("error: cannot find value");
    const start = shown.indexOf("or: cannot find val");
    const marked = document.createElement("pre");
    marked.innerHTML = markEscapedHtml(html(text), { starts: [start], length: "or: cannot find val".length, current: 0, reveal: 1 });
    const marks = [...marked.querySelectorAll("mark.find-hit")];
    expect(marks.map((m) => m.textContent).join("")).toBe("or: cannot find val");
    expect(marks[0]!.closest(".ansi-red-fg")).not.toBeNull();
    expect(marked.textContent).toBe(shown);
  });
});
