// Which waiting requests a rule the user types in the batch dialog would allow. The engine decides
// (`requests_covered_by`, its own matching of calls against rules): the window never guesses from
// the rule's text. Asked once typing pauses; only the answer to the latest question is kept, so an
// older answer arriving late can never replace it (the same scheme as editPreview.svelte.ts).
import { errorText, requestsCoveredBy } from "./ipc";

/** Long enough not to ask on every keystroke, short enough that the rows follow the typing. */
export const COVERAGE_DELAY_MS = 200;

/** What the engine answered about one rule. */
export type CoverageOutcome =
  | { state: "ready"; covered: ReadonlySet<string> }
  /** The rule is not valid: the engine's words. */
  | { state: "failed"; message: string };

/** What the panel shows for the rule as it stands. */
export interface ShownCoverage {
  /** Null before any answer, and for an empty rule. */
  outcome: CoverageOutcome | null;
  /** The outcome is about an earlier rule (or other waiting requests): not to act on. */
  stale: boolean;
}

/** One question: the rule, and which requests waited when it was asked (a request joining the
 *  batch needs a new answer). */
const keyOf = (rule: string, requestIds: readonly string[]) => JSON.stringify([rule, requestIds]);

export class RuleCoverage {
  #answer: { key: string; outcome: CoverageOutcome } | null = $state(null);
  /** Counts questions; an answer is kept only while its question is still the latest. */
  #asked = 0;

  /** What to show for `rule` over `requestIds`. Until the engine answers, the last answer stays,
   *  marked stale, so the rows do not flicker while the user types. */
  shown(rule: string, requestIds: readonly string[]): ShownCoverage {
    if (rule === "") return { outcome: null, stale: false };
    const answer = this.#answer;
    if (answer?.key === keyOf(rule, requestIds)) return { outcome: answer.outcome, stale: false };
    return { outcome: answer?.outcome ?? null, stale: true };
  }

  /** Asks the engine about `rule` after the pause; returns what cancels the question (for an
   *  `$effect`'s cleanup). An empty rule is not asked about. */
  ask(sessionId: string, rule: string, requestIds: readonly string[]): () => void {
    const asked = ++this.#asked;
    if (rule === "") return () => {};
    const key = keyOf(rule, requestIds);
    const keep = (outcome: CoverageOutcome) => {
      if (asked === this.#asked) this.#answer = { key, outcome };
    };
    const timer = setTimeout(() => {
      requestsCoveredBy(sessionId, [rule]).then(
        (ids) => keep({ state: "ready", covered: new Set(ids) }),
        (e: unknown) => keep({ state: "failed", message: errorText(e) }),
      );
    }, COVERAGE_DELAY_MS);
    return () => clearTimeout(timer);
  }
}
