import { describe, expect, it } from "vitest";
import type { DiffHunk } from "../bindings/DiffHunk";
import { diffStats, splitRows, unifiedRows } from "../lib/diff";
import { updatedInput } from "../lib/permission";
import { editRequest } from "./fixtures";

/** The engine's hunk for `x 1 2 y` → `x A y`: two lines deleted, one inserted. */
const hunk: DiffHunk = {
  old_start: 1,
  old_lines: 4,
  new_start: 1,
  new_lines: 3,
  lines: [
    { tag: "context", text: "x" },
    { tag: "delete", text: "1" },
    { tag: "delete", text: "2" },
    { tag: "insert", text: "A" },
    { tag: "context", text: "y" },
  ],
};

describe("diff helpers", () => {
  it("numbers the unified rows of the engine's hunks", () => {
    const rows = unifiedRows([hunk]);
    expect(rows[0]).toEqual({ kind: "header", text: "@@ -1,4 +1,3 @@", hunk: 0 });
    expect(rows[2]).toMatchObject({ tag: "delete", old_no: 2, new_no: null });
    expect(rows[4]).toMatchObject({ tag: "insert", old_no: null, new_no: 2 });
    expect(rows[5]).toMatchObject({ tag: "context", old_no: 4, new_no: 3 });
    expect(diffStats([hunk])).toEqual({ added: 1, removed: 2 });
  });

  it("pairs deletions with insertions side by side", () => {
    const rows = splitRows([hunk]);
    const pairs = rows.filter((r) => r.kind === "pair");
    expect(pairs[1]).toMatchObject({ left: { text: "1", tag: "delete" }, right: { text: "A", tag: "insert" } });
    expect(pairs[2]).toMatchObject({ left: { text: "2" }, right: null });
  });

  it("carries the engine's word changes of a modified line on its rows, and none on a line it did not cut", () => {
    const words = [
      { text: "let x = ", changed: false },
      { text: "2", changed: true },
    ];
    const modified: DiffHunk = {
      old_start: 1,
      old_lines: 2,
      new_start: 1,
      new_lines: 1,
      lines: [
        { tag: "delete", text: "let x = 1", inline: [{ text: "let x = ", changed: false }, { text: "1", changed: true }] },
        { tag: "delete", text: "gone" },
        { tag: "insert", text: "let x = 2", inline: words },
      ],
    };
    expect(unifiedRows([modified]).slice(1)).toEqual([
      { kind: "line", tag: "delete", text: "let x = 1", inline: [{ text: "let x = ", changed: false }, { text: "1", changed: true }], old_no: 1, new_no: null },
      { kind: "line", tag: "delete", text: "gone", inline: null, old_no: 2, new_no: null },
      { kind: "line", tag: "insert", text: "let x = 2", inline: words, old_no: null, new_no: 1 },
    ]);
    expect(splitRows([modified]).slice(1)).toEqual([
      {
        kind: "pair",
        left: { no: 1, text: "let x = 1", tag: "delete", inline: [{ text: "let x = ", changed: false }, { text: "1", changed: true }] },
        right: { no: 1, text: "let x = 2", tag: "insert", inline: words },
      },
      { kind: "pair", left: { no: 2, text: "gone", tag: "delete", inline: null }, right: null },
    ]);
  });

  it("rebuilds the whole input with the user's edited field, or null when unchanged", () => {
    const req = editRequest();
    expect(updatedInput(req.input, "new_string", "let x = 2;")).toBeNull();
    expect(updatedInput(req.input, "new_string", "y")).toEqual({ ...(req.input as object), new_string: "y" });
  });
});
