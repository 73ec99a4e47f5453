// Small display helpers of the Outputs browser.
export { shortenMiddle } from "../settings/labels";

/** A human size: "512 B", "3.4 KB", "1.2 MB", "2.0 GB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(1)} GB`;
}

/** The last part of a path (the project's folder name). */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]+/).filter((p) => p !== "");
  return parts[parts.length - 1] ?? path;
}

export interface Segment {
  text: string;
  /** Index of the find match this segment is, or null for plain text. */
  match: number | null;
}

/** Splits a line into plain and matched parts (case-insensitive); `first` numbers its matches. */
export function splitMatches(text: string, query: string, first: number): Segment[] {
  if (query === "") return [{ text, match: null }];
  const lower = text.toLowerCase();
  const q = query.toLowerCase();
  const out: Segment[] = [];
  let at = 0;
  let n = first;
  for (;;) {
    const i = lower.indexOf(q, at);
    if (i < 0) break;
    if (i > at) out.push({ text: text.slice(at, i), match: null });
    out.push({ text: text.slice(i, i + q.length), match: n++ });
    at = i + q.length;
  }
  if (at < text.length || out.length === 0) out.push({ text: text.slice(at), match: null });
  return out;
}

/** How many times `query` occurs in `text` (case-insensitive, not overlapping). */
export function countMatches(text: string, query: string): number {
  if (query === "") return 0;
  const lower = text.toLowerCase();
  const q = query.toLowerCase();
  let n = 0;
  let at = lower.indexOf(q);
  while (at >= 0) {
    n++;
    at = lower.indexOf(q, at + q.length);
  }
  return n;
}
