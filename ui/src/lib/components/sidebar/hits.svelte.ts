// The full-text hits of the sidebar's search, per shown project: what the engine's index found in
// the sessions' replies, tool inputs and results as well as their titles and prompts
// (`search_sessions`). As with the listings, an answer is dropped when a newer search of the same
// project was asked for meanwhile: a slow answer to "pars" never replaces the one to "parser".
import { untrack } from "svelte";
import type { SearchHitKind } from "../../../bindings/SearchHitKind";
import type { SessionSearchHit } from "../../../bindings/SessionSearchHit";
import { errorText, searchSessions } from "../../ipc";

export interface HitListing {
  /** The query these hits answer. */
  query: string;
  hits: SessionSearchHit[];
  /** Why the search failed (no hits then). */
  error: string | null;
}

export class ConversationHits {
  byPath: Record<string, HitListing> = $state({});
  /** The search the hits answer ("": none, no hits). */
  query = $state("");
  private asked: Record<string, number> = {};
  /** The query each project was last searched with. */
  private askedFor: Record<string, string> = {};

  /** Searches the project again with the current query. Never throws. */
  async refresh(path: string): Promise<void> {
    const n = (this.asked[path] ?? 0) + 1;
    this.asked[path] = n;
    const query = untrack(() => this.query);
    this.askedFor[path] = query;
    if (query === "") {
      delete this.byPath[path];
      return;
    }
    try {
      const hits = await searchSessions(path, query);
      if (this.asked[path] !== n) return;
      this.byPath[path] = { query, hits: hits ?? [], error: null };
    } catch (e) {
      if (this.asked[path] !== n) return;
      this.byPath[path] = { query, hits: [], error: errorText(e) };
    }
  }

  /** Whether the project was searched with the current query (or is being). */
  requested(path: string): boolean {
    return this.askedFor[path] === untrack(() => this.query);
  }

  /** A new search: every given project is searched with it ("" clears the hits). */
  search(query: string, paths: string[]) {
    this.query = query;
    if (query === "") {
      // Answers still on their way are for a search that is gone.
      for (const path of Object.keys(this.asked)) this.asked[path]! += 1;
      this.askedFor = {};
      this.byPath = {};
      return;
    }
    for (const path of paths) void this.refresh(path);
  }
}

/** What a hit's kind is called in its row. */
export function hitKindLabel(kind: SearchHitKind): string {
  switch (kind) {
    case "title":
      return "title";
    case "prompt":
      return "prompt";
    case "reply":
      return "reply";
    case "tool_call":
      return "command/input";
    case "tool_result":
      return "tool result";
  }
}
