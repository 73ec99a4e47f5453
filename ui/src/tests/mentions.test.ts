import { describe, expect, it } from "vitest";
import { highlightRuns, insertMention, mentionAt, mentionText } from "../lib/mentions";

describe("@ mentions", () => {
  it("finds the mention under the caret: at the start or after whitespace, with something typed", () => {
    expect(mentionAt("@gre", 4)).toEqual({ start: 0, end: 4, query: "gre" });
    expect(mentionAt("look at @src/ma please", 15)).toEqual({ start: 8, end: 15, query: "src/ma" });
    expect(mentionAt("look at @src/main.rs", 12)).toEqual({ start: 8, end: 20, query: "src" });
    expect(mentionAt('@"my fi', 7)).toBeNull(); // the space ends the word
    expect(mentionAt('@"my', 4)).toEqual({ start: 0, end: 4, query: "my" });
    expect(mentionAt("@", 1)).toBeNull();
    expect(mentionAt("me@example.com", 14)).toBeNull();
    expect(mentionAt("@gre ", 5)).toBeNull();
  });

  it("inserts the path with a space after it, quoted when it holds whitespace", () => {
    expect(insertMention("say hi to @gre", { start: 10, end: 14, query: "gre" }, "greeting.txt")).toEqual({ text: "say hi to @greeting.txt ", caret: 24 });
    expect(insertMention("@gr and more", { start: 0, end: 3, query: "gr" }, "greeting.txt")).toEqual({ text: "@greeting.txt and more", caret: 14 });
    expect(mentionText("my file.txt")).toBe('@"my file.txt"');
    expect(mentionText("src/a.rs")).toBe("@src/a.rs");
  });

  it("splits a path into matched and unmatched runs by character, not UTF-16 unit", () => {
    expect(highlightRuns("greeting.txt", [0, 1, 2, 9])).toEqual([
      { text: "gre", hit: true },
      { text: "eting.", hit: false },
      { text: "t", hit: true },
      { text: "xt", hit: false },
    ]);
    expect(highlightRuns("😀ab", [1])).toEqual([
      { text: "😀", hit: false },
      { text: "a", hit: true },
      { text: "b", hit: false },
    ]);
  });
});
