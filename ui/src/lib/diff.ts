// Display rows for the engine's diffs (permission previews, tool cards, the Changes panel): the
// engine computes every hunk; this only lays them out, unified or side by side, and counts them.
import type { DiffHunk } from "../bindings/DiffHunk";
import type { DiffTag } from "../bindings/DiffTag";

/** One display row of a unified diff. */
export type UnifiedRow =
  | { kind: "header"; text: string; hunk: number }
  | { kind: "line"; tag: DiffTag; text: string; old_no: number | null; new_no: number | null };

/** One display row of a side-by-side diff: left is the old file, right the new one. */
export type SplitRow =
  | { kind: "header"; text: string; hunk: number }
  | {
      kind: "pair";
      left: { no: number; text: string; tag: "context" | "delete" } | null;
      right: { no: number; text: string; tag: "context" | "insert" } | null;
    };

export function hunkHeader(h: DiffHunk): string {
  return `@@ -${h.old_start},${h.old_lines} +${h.new_start},${h.new_lines} @@`;
}

export function unifiedRows(hunks: DiffHunk[]): UnifiedRow[] {
  const rows: UnifiedRow[] = [];
  for (const [hunk, h] of hunks.entries()) {
    rows.push({ kind: "header", text: hunkHeader(h), hunk });
    let o = h.old_start;
    let n = h.new_start;
    for (const l of h.lines) {
      if (l.tag === "context") rows.push({ kind: "line", tag: l.tag, text: l.text, old_no: o++, new_no: n++ });
      else if (l.tag === "delete") rows.push({ kind: "line", tag: l.tag, text: l.text, old_no: o++, new_no: null });
      else rows.push({ kind: "line", tag: l.tag, text: l.text, old_no: null, new_no: n++ });
    }
  }
  return rows;
}

/** Pairs each run of deletions with the insertions that follow it, line by line. */
export function splitRows(hunks: DiffHunk[]): SplitRow[] {
  const rows: SplitRow[] = [];
  for (const [hunk, h] of hunks.entries()) {
    rows.push({ kind: "header", text: hunkHeader(h), hunk });
    let o = h.old_start;
    let n = h.new_start;
    let i = 0;
    while (i < h.lines.length) {
      const l = h.lines[i]!;
      if (l.tag === "context") {
        rows.push({ kind: "pair", left: { no: o++, text: l.text, tag: "context" }, right: { no: n++, text: l.text, tag: "context" } });
        i++;
        continue;
      }
      const dels: string[] = [];
      const ins: string[] = [];
      while (i < h.lines.length && h.lines[i]!.tag === "delete") dels.push(h.lines[i++]!.text);
      while (i < h.lines.length && h.lines[i]!.tag === "insert") ins.push(h.lines[i++]!.text);
      for (let k = 0; k < Math.max(dels.length, ins.length); k++) {
        rows.push({
          kind: "pair",
          left: k < dels.length ? { no: o++, text: dels[k]!, tag: "delete" } : null,
          right: k < ins.length ? { no: n++, text: ins[k]!, tag: "insert" } : null,
        });
      }
    }
  }
  return rows;
}

/** Counts of inserted and deleted lines, for a "+3 −1" label. */
export function diffStats(hunks: DiffHunk[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const h of hunks) for (const l of h.lines) {
    if (l.tag === "insert") added++;
    else if (l.tag === "delete") removed++;
  }
  return { added, removed };
}
