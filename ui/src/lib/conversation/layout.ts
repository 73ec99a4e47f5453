// Where the conversation's items sit, for a list that renders only those in view. Heights are
// measured once a row has been drawn and estimated until then; offsets are their running sums.
import type { Item } from "./types";

/** Up to this many items everything is rendered (and every card is in the DOM, as end-to-end
 *  tests of short sessions expect); beyond it only the rows in view and the overscan. */
export const VIRTUALISE_ABOVE = 150;
/** Rows drawn beyond the viewport on each side, in px of estimated or measured height… */
export const OVERSCAN_PX = 800;
/** …and at least this many rows each side, so a few tall rows still leave neighbours drawn. */
export const OVERSCAN_ROWS = 3;
/** The list's gap between rows (MessageList's CSS says the same). */
export const ROW_GAP = 6;
/** Within this many px of the bottom the view counts as at the bottom and follows new output. */
export const FOLLOW_SLACK = 40;
/** The viewport's height where none can be measured (no layout, or not shown yet). */
export const FALLBACK_VIEW = 800;

/** A first guess at a row's height before it was drawn: close enough for the scroll bar. */
export function estimateHeight(item: Item): number {
  switch (item.kind) {
    case "user":
      return 30 + 20 * Math.floor(item.text.length / 100) + (item.images.length ? 110 : 0) + (item.attachments.length ? 26 : 0);
    case "assistant":
      return 34 + 21 * Math.ceil(item.text.length / 90) + (item.thinking ? 22 : 0);
    case "batch":
      return item.tool_ids.length * 40 + (item.tool_ids.length > 1 ? 22 : 0);
    case "notice":
      return 22;
  }
}

/** Where each row starts (one more entry than rows: where the next would start), each row
 *  followed by the gap. */
export function rowOffsets(items: Item[], measured: Map<string, number>): Float64Array {
  const offsets = new Float64Array(items.length + 1);
  let at = 0;
  for (let i = 0; i < items.length; i++) {
    offsets[i] = at;
    const item = items[i]!;
    at += (measured.get(item.key) ?? estimateHeight(item)) + ROW_GAP;
  }
  offsets[items.length] = at;
  return offsets;
}

/** The row at `y` (clamped to the rows there are). */
export function rowAt(offsets: Float64Array, y: number): number {
  const rows = offsets.length - 1;
  if (rows <= 0) return 0;
  let lo = 0;
  let hi = rows - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (offsets[mid]! <= y) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The rows to draw for a viewport at `top` (in the list's coordinates) `height` px tall: from
 *  `first` up to, not including, `last`. */
export function visibleRange(offsets: Float64Array, top: number, height: number): { first: number; last: number } {
  const rows = offsets.length - 1;
  if (rows <= 0) return { first: 0, last: 0 };
  const first = Math.max(0, rowAt(offsets, top - OVERSCAN_PX) - OVERSCAN_ROWS);
  const last = Math.min(rows, rowAt(offsets, top + height + OVERSCAN_PX) + 1 + OVERSCAN_ROWS);
  return { first, last };
}
