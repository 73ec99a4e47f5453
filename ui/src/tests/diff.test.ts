import { describe, expect, it } from "vitest";
import { computeHunks, splitRows, unifiedRows } from "../lib/diff";
import { editedNewText, updatedInput } from "../lib/permission";
import { editRequest } from "./fixtures";

describe("diff helpers", () => {
  it("computes hunks with jsdiff and numbers unified rows", () => {
    const h = computeHunks("a\nb\nc\n", "a\nB\nc\n");
    expect(h).toHaveLength(1);
    expect(h[0]!.lines).toEqual([
      { tag: "context", text: "a" },
      { tag: "delete", text: "b" },
      { tag: "insert", text: "B" },
      { tag: "context", text: "c" },
    ]);
    const rows = unifiedRows(h);
    expect(rows[0]).toEqual({ kind: "header", text: "@@ -1,3 +1,3 @@" });
    expect(rows[2]).toMatchObject({ tag: "delete", old_no: 2, new_no: null });
    expect(rows[3]).toMatchObject({ tag: "insert", old_no: null, new_no: 2 });
  });

  it("pairs deletions with insertions side by side", () => {
    const rows = splitRows(computeHunks("x\n1\n2\ny\n", "x\nA\ny\n"));
    const pairs = rows.filter((r) => r.kind === "pair");
    expect(pairs[1]).toMatchObject({ left: { text: "1", tag: "delete" }, right: { text: "A", tag: "insert" } });
    expect(pairs[2]).toMatchObject({ left: { text: "2" }, right: null });
  });

  it("rebuilds Edit text from the user's edited new_string", () => {
    const req = editRequest();
    const preview = req.preview as never;
    expect(editedNewText("Edit", req.input, preview, "let x = 42;")).toContain("let x = 42;");
    expect(updatedInput(req.input, "new_string", "let x = 2;")).toBeNull(); // unchanged
    expect(updatedInput(req.input, "new_string", "y")).toEqual({ ...(req.input as object), new_string: "y" });
  });
});
