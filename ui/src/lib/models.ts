// Wording for the models a server lists (the session header's model picker). The figures are the
// engine's; what it does not know stays unsaid.
import type { ModelListing } from "../bindings/ModelListing";
import type { ModelPriceView } from "../bindings/ModelPriceView";
import { shortTokens } from "./usage";

/** What to call a model: the listing's display name when it gave one, else its id. */
export function modelName(id: string, listing: readonly ModelListing[]): string {
  return listing.find((m) => m.id === id)?.display_name || id;
}

/** "200k context"; null when the window is not known. */
export function contextWindowText(window: number | null): string | null {
  return window === null || window <= 0 ? null : `${shortTokens(window)} context`;
}

/** A per-million price, as short as it stays exact to a tenth of a cent: 3 → "$3", 0.8 → "$0.8",
 *  0.075 → "$0.075" (formatUsd's fixed decimals are for amounts spent, not rates). */
function rate(usd: number): string {
  return `$${Number(usd.toFixed(3))}`;
}

/** "$3 / $15 per Mtok" (input / output); null when the price is not known. */
export function priceText(price: ModelPriceView | null): string | null {
  return price === null ? null : `${rate(price.input_per_mtok)} / ${rate(price.output_per_mtok)} per Mtok`;
}

/** The models whose id or display name contains `query` (case-insensitively), in the server's order. */
export function filterModels(listing: readonly ModelListing[], query: string): ModelListing[] {
  const q = query.trim().toLowerCase();
  if (!q) return [...listing];
  return listing.filter((m) => m.id.toLowerCase().includes(q) || (m.display_name ?? "").toLowerCase().includes(q));
}

/** Past this many models the menu offers a filter. */
export const FILTER_ABOVE = 8;
