// Display rows for the engine's diffs (permission previews, tool cards, the Changes panel): the
// engine computes every hunk; this only lays them out, unified or side by side, and counts them.
import type { DiffHunk } from "../bindings/DiffHunk";
import type { DiffLine } from "../bindings/DiffLine";
import type { DiffTag } from "../bindings/DiffTag";
import type { InlineSpan } from "../bindings/InlineSpan";

/** The engine's word changes of a modified line (null when it sent none: the line shows whole). */
type Inline = InlineSpan[] | null;

/** One display row of a unified diff. */
export type UnifiedRow =
  | { kind: "header"; text: string; hunk: number }
  | { kind: "line"; tag: DiffTag; text: string; inline: Inline; old_no: number | null; new_no: number | null };

/** One display row of a side-by-side diff: left is the old file, right the new one. */
export type SplitRow =
  | { kind: "header"; text: string; hunk: number }
  | {
      kind: "pair";
      left: { no: number; text: string; tag: "context" | "delete"; inline: Inline } | null;
      right: { no: number; text: string; tag: "context" | "insert"; inline: Inline } | null;
    };

const inlineOf = (l: DiffLine): Inline => l.inline ?? null;

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
      const line = { kind: "line", tag: l.tag, text: l.text, inline: inlineOf(l) } as const;
      if (l.tag === "context") rows.push({ ...line, old_no: o++, new_no: n++ });
      else if (l.tag === "delete") rows.push({ ...line, old_no: o++, new_no: null });
      else rows.push({ ...line, old_no: null, new_no: n++ });
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
        const inline = inlineOf(l);
        rows.push({ kind: "pair", left: { no: o++, text: l.text, tag: "context", inline }, right: { no: n++, text: l.text, tag: "context", inline } });
        i++;
        continue;
      }
      const dels: DiffLine[] = [];
      const ins: DiffLine[] = [];
      while (i < h.lines.length && h.lines[i]!.tag === "delete") dels.push(h.lines[i++]!);
      while (i < h.lines.length && h.lines[i]!.tag === "insert") ins.push(h.lines[i++]!);
      for (let k = 0; k < Math.max(dels.length, ins.length); k++) {
        const del = dels[k];
        const add = ins[k];
        rows.push({
          kind: "pair",
          left: del ? { no: o++, text: del.text, tag: "delete", inline: inlineOf(del) } : null,
          right: add ? { no: n++, text: add.text, tag: "insert", inline: inlineOf(add) } : null,
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
