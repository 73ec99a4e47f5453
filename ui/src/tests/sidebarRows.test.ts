// The sidebar's pure parts (which projects, which rows, their words) and the live sessions' store.
import { describe, expect, it } from "vitest";
import { deletedNote, forkedText, mergeRows, relativeTime, rowCost, rowTitle, shownProjects } from "../lib/components/sidebar/rows";
import { SessionStore } from "../lib/conversation/session.svelte";
import { LiveSessions } from "../lib/sessions.svelte";
import { bashRequest, queued, sessionSummary } from "./fixtures";
import { sessionInfo } from "./live";

const summary = sessionSummary;

describe("shownProjects", () => {
  it("lists the live sessions' projects, then recent ones, each once, at most eight", () => {
    const recent = ["/r1", "/live-b", "/r2", "/r3", "/r4", "/r5", "/r6", "/r7", "/r8"];
    expect(shownProjects(["/live-a", "/live-b", "/live-a"], recent)).toEqual(["/live-a", "/live-b", "/r1", "/r2", "/r3", "/r4", "/r5", "/r6"]);
    expect(shownProjects([], ["/a", "/a", "/b"])).toEqual(["/a", "/b"]);
  });

  it("never leaves a live session's project out", () => {
    const live = Array.from({ length: 10 }, (_, i) => `/l${i}`);
    expect(shownProjects(live, ["/r"])).toEqual(live);
  });
});

describe("mergeRows", () => {
  it("marks the live sessions, takes their cost from the store, and puts the unlisted live ones first, newest first", () => {
    const listed = [summary("a", { cost_usd: 0.5 }), summary("b", { cost_usd: 0.2 })];
    const rows = mergeRows(
      listed,
      [
        { id: "b", startedMs: 10, costUsd: 0.3, firstPrompt: "" },
        { id: "new-1", startedMs: 20, costUsd: null, firstPrompt: "Fix the build" },
        { id: "new-2", startedMs: 30, costUsd: null, firstPrompt: "" },
      ],
      false,
    );
    expect(rows.map((r) => [r.id, r.live, r.costUsd])).toEqual([
      ["new-2", true, null],
      ["new-1", true, null],
      ["a", false, 0.5],
      ["b", true, 0.3],
    ]);
    expect(rows[0]!.title).toBe("");
    expect(rows[0]!.modifiedMs).toBe(30);
    // Until the engine titles it, a live session is titled by its first prompt.
    expect(rows[1]!.title).toBe("Fix the build");
    expect(mergeRows([summary("c", { title: "" })], [{ id: "c", startedMs: 1, costUsd: null, firstPrompt: "Hello" }], false)[0]!.title).toBe("Hello");
    expect(mergeRows([summary("c", { title: "Engine's" })], [{ id: "c", startedMs: 1, costUsd: null, firstPrompt: "Hello" }], false)[0]!.title).toBe("Engine's");
  });

  it("says which session a fork came from, by its title when listed", () => {
    const rows = mergeRows(
      [summary("f", { forked_from: "a" }), summary("g", { forked_from: "gone" }), summary("a", { title: "" })],
      [{ id: "a", startedMs: 1, costUsd: null, firstPrompt: "Fix it" }],
      false,
    );
    expect(rows.map((r) => [r.id, r.forkedFrom])).toEqual([
      ["f", { id: "a", title: "Fix it" }],
      ["g", { id: "gone", title: null }],
      ["a", null],
    ]);
    expect(rows.map((r) => (r.forkedFrom ? forkedText(r.forkedFrom) : null))).toEqual(["forked from “Fix it”", "forked", null]);
  });

  it("lists only what a search found", () => {
    const rows = mergeRows([summary("a", { matched_prompt: "fix it" })], [{ id: "new-1", startedMs: 1, costUsd: null, firstPrompt: "" }], true);
    expect(rows.map((r) => [r.id, r.matchedPrompt])).toEqual([["a", "fix it"]]);
  });
});

describe("a row's words", () => {
  const now = new Date(2025, 5, 15, 12, 0, 0).getTime();
  it("says how long ago, then the date", () => {
    expect(relativeTime(now - 10_000, now)).toBe("just now");
    expect(relativeTime(now - 5 * 60_000, now)).toBe("5 min ago");
    expect(relativeTime(now - 3 * 3_600_000, now)).toBe("3 h ago");
    expect(relativeTime(now - 30 * 3_600_000, now)).toBe("yesterday");
    expect(relativeTime(now - 4 * 86_400_000, now)).toBe("4 days ago");
    const date = new Date(2025, 0, 3).getTime();
    expect(relativeTime(date, now)).toBe(new Date(date).toLocaleDateString(undefined, { month: "short", day: "numeric" }));
    const lastYear = new Date(2024, 0, 3).getTime();
    expect(relativeTime(lastYear, now)).toContain("2024");
  });

  it("shows the cost in cents, nothing when unknown", () => {
    expect(rowCost(0.1234)).toBe("$0.12");
    expect(rowCost(12)).toBe("$12.00");
    expect(rowCost(0)).toBe("$0.00");
    expect(rowCost(0.001)).toBe("<$0.01");
    expect(rowCost(null)).toBeNull();
  });

  it("names an untitled session and says what a delete freed", () => {
    expect(rowTitle("  ")).toBe("New session");
    expect(rowTitle("Fix it")).toBe("Fix it");
    expect(deletedNote("Fix the parser", { bytes: 1.2 * 1024 * 1024, outputs: 3, kept_branch: null })).toBe("Deleted “Fix the parser”: 1.2 MB freed, 3 outputs");
    expect(deletedNote("", { bytes: 100, outputs: 1, kept_branch: null })).toBe("Deleted “New session”: 100 B freed, 1 output");
    expect(deletedNote("Try it", { bytes: 100, outputs: 0, kept_branch: "nerve/try-it" })).toBe(
      "Deleted “Try it”: 100 B freed, 0 outputs; its work stays on branch nerve/try-it",
    );
  });
});

describe("LiveSessions", () => {
  const store = (id: string, project = "/p") => new SessionStore(sessionInfo({ session_id: id, project_path: project }));

  it("adds and shows sessions, replaces one resumed again in place, and lists their projects once", () => {
    const live = new LiveSessions();
    const a = store("a", "/p");
    live.add(a);
    live.add(store("b", "/q"));
    live.add(store("c", "/p"));
    expect(live.activeId).toBe("c");
    expect(live.projects).toEqual(["/p", "/q"]);
    const again = store("a", "/p");
    live.add(again);
    expect(live.list.map((s) => s.id)).toEqual(["a", "b", "c"]);
    expect(live.get("a")).toBe(again);
    expect(live.activeId).toBe("a");
  });

  it("shows the next live session when the shown one goes, else the one before, else none", () => {
    const live = new LiveSessions();
    for (const id of ["a", "b", "c"]) live.add(store(id));
    live.activate("b");
    live.remove("b");
    expect(live.activeId).toBe("c");
    live.remove("c");
    expect(live.activeId).toBe("a");
    live.add(store("d"), false);
    live.remove("d"); // not the active one: nothing changes
    expect(live.activeId).toBe("a");
    live.remove("a");
    expect(live.activeId).toBeNull();
    expect(live.active).toBeNull();
  });

  it("puts /clear's new session in the old one's place", () => {
    const live = new LiveSessions();
    for (const id of ["a", "b", "c"]) live.add(store(id));
    live.activate("b");
    live.replace("b", store("b2"));
    expect(live.list.map((s) => s.id)).toEqual(["a", "b2", "c"]);
    expect(live.activeId).toBe("b2");
  });

  it("counts the waiting approvals of every session and finds one that waits", () => {
    const live = new LiveSessions();
    const a = store("a");
    const b = store("b");
    live.add(a);
    live.add(b);
    expect(live.totalWaiting).toBe(0);
    expect(live.firstWaiting()).toBeNull();
    a.apply(queued("tu-r-bash", 1, false, "Bash"));
    a.apply({ type: "permission_requested", request: bashRequest() });
    expect(live.totalWaiting).toBe(1);
    expect(live.firstWaiting()).toBe(a);
  });
});
