// Find in conversation, the live part: the query, the matches and the current one, shared with
// the components that show the texts (through context) so each marks its own matches.
import { getContext, setContext } from "svelte";
import { findAll, locate, NO_RESULTS, type FindResults, type FindSource, type Hits } from "./find";

/** Typing pauses this long before a search runs. */
export const FIND_DEBOUNCE_MS = 120;
/** While the bar is open, changes to the conversation search again at most this often. */
export const FIND_REFRESH_MS = 250;

export class FindState {
  open = $state(false);
  /** The query searched for (the bar's text once typing pauses). */
  query = $state("");
  caseSensitive = $state(false);
  results: FindResults = $state.raw(NO_RESULTS);
  /** Index of the current match among all, -1 when none. */
  current = $state(-1);
  /** Counts moves to a match (a new search, next, previous): the views bring the current one
   *  into view each time, and not when a refresh merely recounts. */
  nav = $state(0);

  /** Where the current match is: its source and index there. */
  readonly target = $derived.by(() => {
    const at = locate(this.results, this.current);
    return at ? { id: at.source.id, local: at.local, nav: this.nav } : null;
  });

  private cache = new Map<string, { text: string; query: string; caseSensitive: boolean; starts: number[] }>();
  private hitsCache = new Map<string, Hits>();
  private hitsOf: FindResults = NO_RESULTS;
  private sources: () => FindSource[];

  constructor(sources: () => FindSource[]) {
    this.sources = sources;
  }

  /** Searches for `query`; the first match becomes the current one. */
  search(query: string, caseSensitive = this.caseSensitive) {
    this.query = query;
    this.caseSensitive = caseSensitive;
    this.results = findAll(query ? this.sources() : [], query, caseSensitive, this.cache);
    this.current = this.results.total > 0 ? 0 : -1;
    this.nav++;
  }

  /** Searches again for the same query (the conversation changed): the current match stays the
   *  current one if it is still there, and nothing is scrolled. */
  refresh() {
    if (!this.query) return;
    const before = locate(this.results, this.current);
    const start = before ? before.source.starts[before.local] : undefined;
    const results = findAll(this.sources(), this.query, this.caseSensitive, this.cache);
    let current = Math.min(this.current, results.total - 1);
    if (before && start !== undefined) {
      const same = results.byId.get(before.source.id);
      const local = same ? same.starts.indexOf(start) : -1;
      if (same && local >= 0) current = same.first + local;
    }
    this.results = results;
    this.current = results.total > 0 ? Math.max(0, current) : -1;
  }

  next() {
    this.step(1);
  }

  previous() {
    this.step(-1);
  }

  private step(by: number) {
    const total = this.results.total;
    if (total === 0) return;
    this.current = (((this.current + by) % total) + total) % total;
    this.nav++;
  }

  close() {
    this.open = false;
    this.query = "";
    this.results = NO_RESULTS;
    this.current = -1;
    this.cache.clear();
  }

  /**
   * The matches one component marks, or null. The same object comes back until something about
   * that source changes, so a move from one match to the next re-renders only the two texts
   * involved.
   */
  hitsFor(id: string): Hits | null {
    const results = this.results;
    const target = this.target;
    if (results !== this.hitsOf) {
      this.hitsCache.clear();
      this.hitsOf = results;
    }
    const matches = results.byId.get(id);
    if (!matches) return null;
    const current = target && target.id === id ? target.local : -1;
    const reveal = current >= 0 ? target!.nav : 0;
    const cached = this.hitsCache.get(id);
    if (cached && cached.current === current && cached.reveal === reveal) return cached;
    const hits: Hits = { starts: matches.starts, length: results.query.length, current, reveal };
    this.hitsCache.set(id, hits);
    return hits;
  }
}

const KEY = Symbol("nerve.find");

export function setFind(find: FindState) {
  setContext(KEY, find);
}

/** For a view nested in the conversation whose texts the find bar does not search (a
 *  sub-agent's transcript, keyed like the main line): its components mark nothing, rather than
 *  the matches of the main line's items with the same keys. */
export function hideFind() {
  setContext(KEY, undefined);
}

/** The conversation's find state, or none (a component shown outside a conversation). */
export function findContext(): FindState | undefined {
  return getContext<FindState | undefined>(KEY);
}
