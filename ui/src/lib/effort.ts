// Thinking effort: how much extended thinking a session's requests ask for. The engine turns a
// level into a thinking budget; the figures here only say so to the user.
import type { Effort } from "../bindings/Effort";

// Every level decides here what it is called and how many thinking tokens it allows, so a new
// engine level cannot be forgotten (the Record must name them all). Budgets as the engine sends them.
const LEVELS: Record<Effort, { label: string; budget: number | null }> = {
  off: { label: "Off", budget: null },
  low: { label: "Low", budget: 4_000 },
  medium: { label: "Medium", budget: 10_000 },
  high: { label: "High", budget: 24_000 },
};

/** The levels, least thinking first. */
export const EFFORTS = Object.keys(LEVELS) as Effort[];

export const effortLabel = (effort: Effort): string => LEVELS[effort].label;

/** The thinking budget in tokens; null when off (no thinking is asked for). */
export const effortBudget = (effort: Effort): number | null => LEVELS[effort].budget;

/** The level a typed name means (case does not matter). */
export function effortNamed(name: string): Effort | null {
  const lower = name.toLowerCase();
  return EFFORTS.find((e) => e === lower) ?? null;
}

/** What choosing a level does, for its button's title: "Thinks up to 4k tokens before answering". */
export function effortHint(effort: Effort): string {
  const budget = effortBudget(effort);
  return budget === null ? "No extended thinking" : `Thinks up to ${budget / 1000}k tokens before answering`;
}

/** The budget spelled out for a tooltip: "24,000 tokens". */
export function budgetText(effort: Effort): string {
  const budget = effortBudget(effort);
  return budget === null ? "none" : `${budget.toLocaleString("en-US")} tokens`;
}
