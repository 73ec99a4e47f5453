import { describe, expect, it } from "vitest";
import { continuationPrompt, planLines, planWithNotes, reviewMessage, setComment } from "../lib/planReview";

const PLAN = ["# Rename", "", "1. Read the module", "2. Rename the module", "3. Fix the imports", "", "5. Run the tests", ""].join("\n");

describe("planLines", () => {
  it("splits the source into lines, without the trailing blank ones", () => {
    expect(planLines(PLAN)).toEqual(["# Rename", "", "1. Read the module", "2. Rename the module", "3. Fix the imports", "", "5. Run the tests"]);
    expect(planLines("a\r\nb\n\n\n")).toEqual(["a", "b"]);
    expect(planLines("")).toEqual([""]);
  });
});

describe("setComment", () => {
  it("sets, replaces and (with blank text) removes a line's comment, keeping them by line", () => {
    let comments = setComment([], 7, "  run only the parser's tests first ");
    comments = setComment(comments, 4, "keep the old name");
    expect(comments).toEqual([
      { line: 4, text: "keep the old name" },
      { line: 7, text: "run only the parser's tests first" },
    ]);
    comments = setComment(comments, 4, "keep the old name as an alias");
    expect(comments).toEqual([
      { line: 4, text: "keep the old name as an alias" },
      { line: 7, text: "run only the parser's tests first" },
    ]);
    expect(setComment(comments, 7, "  ")).toEqual([{ line: 4, text: "keep the old name as an alias" }]);
  });
});

describe("reviewMessage", () => {
  it("quotes each comment's line by number and text, in line order, then the general feedback", () => {
    const comments = [
      { line: 7, text: "run only the parser's tests first" },
      { line: 4, text: "keep the old name as an alias" },
    ];
    expect(reviewMessage(PLAN, comments, "  Also update the docs \n")).toBe(
      [
        "Review of the plan:",
        '- Line 4 ("2. Rename the module"): keep the old name as an alias',
        "- Line 7 (\"5. Run the tests\"): run only the parser's tests first",
        "Also update the docs",
      ].join("\n"),
    );
  });

  it("without feedback is only the comments; without comments only the feedback; else nothing", () => {
    expect(reviewMessage(PLAN, [{ line: 1, text: "shorter title" }], "")).toBe('Review of the plan:\n- Line 1 ("# Rename"): shorter title');
    expect(reviewMessage(PLAN, [], " also update the docs ")).toBe("also update the docs");
    expect(reviewMessage(PLAN, [{ line: 3, text: "  " }], "  ")).toBeNull();
  });

  it("indents a comment's further lines, trims the quoted line, and names a blank line by number", () => {
    const plan = "  - indented step  \n\nlast";
    expect(reviewMessage(plan, [{ line: 1, text: "first\nsecond" }, { line: 2, text: "add a step here" }], "")).toBe(
      ['Review of the plan:', '- Line 1 ("- indented step"): first', "  second", "- Line 2: add a step here"].join("\n"),
    );
  });
});

describe("notes and the continuation prompt", () => {
  it("adds the notes as the plan's last section, and leaves the plan alone without them", () => {
    expect(planWithNotes("1. Do it\n\n", " use the helper \n")).toBe("1. Do it\n\n## Notes from the user\nuse the helper");
    expect(planWithNotes("1. Do it\n", "  ")).toBe("1. Do it\n");
  });

  it("starts a new session's prompt with the plan and its notes", () => {
    expect(continuationPrompt("1. Do it\n", "")).toBe("Implement this plan:\n\n1. Do it");
    expect(continuationPrompt("1. Do it\n", "carefully")).toBe("Implement this plan:\n\n1. Do it\n\n## Notes from the user\ncarefully");
  });
});
