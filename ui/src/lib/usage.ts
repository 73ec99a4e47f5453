// Wording and arithmetic for the header's context meter and costs. The figures are the engine's;
// nothing here estimates tokens or prices.
import type { CacheState, ContextMeter } from "./conversation/types";

/** Past these shares of the window the meter changes colour (the engine auto-compacts near the end). */
export const CONTEXT_HIGH = 0.7;
export const CONTEXT_CRITICAL = 0.9;

export type ContextLevel = "normal" | "high" | "critical";

export function contextShare(context: ContextMeter): number {
  return context.window > 0 ? context.tokens / context.window : 0;
}

export function contextLevel(context: ContextMeter): ContextLevel {
  const share = contextShare(context);
  if (share > CONTEXT_CRITICAL) return "critical";
  if (share > CONTEXT_HIGH) return "high";
  return "normal";
}

/** A whole percentage; "<1" for a little used, never 0 then. */
export function contextPercent(context: ContextMeter): string {
  const pct = contextShare(context) * 100;
  if (context.tokens > 0 && pct < 0.5) return "<1";
  return String(Math.round(pct));
}

/** 200000 → "200k", 1000000 → "1M", 1050000 → "1.05M", 950 → "950". */
export function shortTokens(n: number): string {
  if (n >= 1_000_000) return `${Number((n / 1_000_000).toFixed(2))}M`;
  if (n >= 1000) return `${Math.round(n / 1000)}k`;
  return String(n);
}

export const COMPACTED_NOTE = "compacted — updates with the next reply";

export function contextText(context: ContextMeter): string {
  const used = context.window > 0 ? `${contextPercent(context)}% of ${shortTokens(context.window)} context` : `${shortTokens(context.tokens)} tokens of context`;
  return context.compacted ? `${used} · ${COMPACTED_NOTE}` : used;
}

export function contextTooltip(context: ContextMeter): string {
  const exact = (n: number) => n.toLocaleString("en-US");
  const used = `${exact(context.tokens)} of ${context.window > 0 ? exact(context.window) : "?"} tokens: the latest reply's whole input (cached or not) and output`;
  return context.compacted ? `${used}; ${COMPACTED_NOTE}` : used;
}

/** Dollars with precision that fits the amount: "$0.00", "$0.0123", "$1.23", "<$0.0001". */
export function formatUsd(usd: number): string {
  if (usd === 0) return "$0.00";
  if (usd < 0.0001) return "<$0.0001";
  if (usd < 1) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

/** The session's cache reads and what they saved: "cache 1.2M read, saved $0.4500"; no savings
 *  part when the price is unknown, nothing at all before the cache was read. */
export function cacheText(cache: CacheState): string | null {
  if (cache.read_tokens <= 0) return null;
  const read = `cache ${shortTokens(cache.read_tokens)} read`;
  return cache.saved_usd === null ? read : `${read}, saved ${formatUsd(cache.saved_usd)}`;
}
