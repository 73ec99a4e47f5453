// Find in conversation: the search over the view state (virtualised rows and collapsed results
// included), marking in rendered HTML, and the bar's keys.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import type { HistoryMessage } from "../bindings/HistoryMessage";
import Conversation from "../lib/components/Conversation.svelte";
import { fromHistory } from "../lib/conversation/reducer";
import {
  conversationSources,
  countLabel,
  findAll,
  hitsOnLine,
  lineAt,
  lineStartsOf,
  markEscapedHtml,
  markHtml,
  markdownText,
  matchLines,
  matchStarts,
  type Hits,
} from "../lib/find";
import { highlight } from "../lib/highlight";
import { renderMarkdown } from "../lib/markdown";
import { bashRequest, queued } from "./fixtures";
import { liveSession, pastArmDelay, sessionInfo } from "./live";
import { answered, results, said } from "./messages";

const LINES = 100_000;
const NEEDLE_LINE = 77_777;
const bigOutput = Array.from({ length: LINES }, (_, i) => (i === NEEDLE_LINE ? `row ${i} has the Needle` : `row ${i}`)).join("\n");

/** A resumed session: a prompt, an answer in Markdown, a Bash call whose 100,000-line result is
 *  collapsed, and a last answer. "needle" occurs 4 times, once with a capital N. */
const history: HistoryMessage[] = [
  said("find the needle please"),
  answered("Looking for the **needle** now.", [["t-big", "Bash", { command: "seq" }]]),
  results(["t-big", bigOutput]),
  answered("Found one needle."),
];

const hits = (starts: number[], current = -1, length = 3): Hits => ({ starts, length, current, reveal: 1 });

describe("find: search and marking", () => {
  it("finds case-insensitively by default, exactly with case on, and caps the count", () => {
    expect(matchStarts("Abc abc ABC", "abc", false)).toEqual([0, 4, 8]);
    expect(matchStarts("Abc abc ABC", "abc", true)).toEqual([4]);
    expect(matchStarts("a.c abc", ".", false)).toEqual([1]); // literal, not a pattern
    const sources = [
      { id: "x", text: "aaaa" },
      { id: "y", text: "aa" },
    ];
    const all = findAll(sources, "a", false);
    expect([all.total, all.sources.map((s) => [s.id, s.first])]).toEqual([6, [["x", 0], ["y", 4]]]);
    const capped = findAll(sources, "a", false, undefined, 5);
    expect([capped.total, capped.capped, countLabel(capped, 0)]).toEqual([5, true, "1 of 5+"]);
    expect(countLabel(findAll(sources, "zz", false), -1)).toBe("0 of 0");
  });

  it("takes every text of the conversation in the order it is shown, the collapsed result too", () => {
    const state = fromHistory(history, "default");
    const sources = conversationSources(state);
    expect(sources.map((s) => s.id.split(":")[0])).toEqual(["u", "a", "s", "r", "a"]);
    // Markdown is searched as rendered: no asterisks.
    expect(sources[1]!.text.trim()).toBe("Looking for the needle now.");
    const results = findAll(sources, "needle", false);
    expect(results.total).toBe(4);
    expect(results.sources.map((s) => s.id.split(":")[0])).toEqual(["u", "a", "r", "a"]);
    expect(findAll(sources, "Needle", true).total).toBe(1);
  });

  it("marks matches in highlighted code without breaking its tags or entities", () => {
    const html = highlight('let s = "a<b";', "rust");
    const text = 'let s = "a<b";';
    const at = text.indexOf('"a<b"');
    const marked = markEscapedHtml(html, hits([at], 0, 5));
    const div = document.createElement("div");
    div.innerHTML = marked;
    expect(div.textContent).toBe(text);
    const marks = [...div.querySelectorAll("mark")];
    expect(marks.map((m) => m.textContent).join("")).toBe('"a<b"');
    expect(marks.every((m) => m.classList.contains("find-current"))).toBe(true);
    // A match across a tag boundary is closed before the tag and opened again after it.
    expect(markEscapedHtml('x<span class="k">yz</span>w', hits([0], -1, 3))).toBe(
      '<mark class="find-hit">x</mark><span class="k"><mark class="find-hit">yz</mark></span>w',
    );
  });

  it("marks matches in rendered Markdown across elements, still sanitised", () => {
    const md = "Say **hel**lo to <img src=x onerror=alert(1)> `hello`";
    const html = renderMarkdown(md);
    const text = markdownText(md);
    const starts = matchStarts(text, "hello", false);
    expect(starts).toHaveLength(2);
    const div = document.createElement("div");
    div.innerHTML = markHtml(html, { starts, length: 5, current: 1, reveal: 1 });
    expect(div.textContent).toBe(text);
    expect([...div.querySelectorAll("mark")].map((m) => m.textContent)).toEqual(["hel", "lo", "hello"]);
    expect(div.querySelector("mark.find-current")?.textContent).toBe("hello");
    expect(div.querySelector("img")).toBeNull();
  });

  it("finds a text's matches on each line", () => {
    const lines = ["ab", "xab ab", "", "ab"];
    const starts = matchStarts(lines.join("\n"), "ab", false);
    const lineStarts = lineStartsOf(lines);
    const hitLines = matchLines(lineStarts, starts);
    expect([...hitLines]).toEqual([0, 1, 1, 3]);
    expect(lineAt(lineStarts, starts[2]!)).toBe(1);
    const h: Hits = { starts, length: 2, current: 2, reveal: 1 };
    expect([0, 1, 2, 3].map((l) => hitsOnLine(h, lineStarts, hitLines, l)).map((x) => x && [x.starts, x.current])).toEqual([
      [[0], -1],
      [[1, 4], 1],
      null,
      [[0], -1],
    ]);
  });

  it("stays fast on 100,000 matching lines", () => {
    const big = Array.from({ length: 100_000 }, (_, i) => `row ${i}`).join("\n");
    const t0 = performance.now();
    const results = findAll([{ id: "r:x:0", text: big }], "row", false);
    const lines = big.split("\n");
    const lineStarts = lineStartsOf(lines);
    const hitLines = matchLines(lineStarts, results.sources[0]!.starts);
    const h: Hits = { starts: results.sources[0]!.starts, length: 3, current: 50_000, reveal: 1 };
    const row = hitsOnLine(h, lineStarts, hitLines, 50_000);
    expect(results.total).toBe(100_000);
    expect(results.capped).toBe(false);
    expect(row).toEqual({ starts: [0], length: 3, current: 0, reveal: 1 });
    // Generous for a slow CI machine; locally this is a few tens of milliseconds.
    expect(performance.now() - t0).toBeLessThan(1500);
    // One more match than the limit is said to be capped, even inside a single text.
    expect(findAll([{ id: "x", text: big + "\nrow" }], "row", false).capped).toBe(true);
  });
});

describe("find bar in a conversation", () => {
  const revealed: Element[] = [];
  beforeEach(() => {
    revealed.length = 0;
    vi.spyOn(Element.prototype, "scrollIntoView").mockImplementation(function (this: Element) {
      revealed.push(this);
    });
  });
  afterEach(() => vi.restoreAllMocks());

  async function openFind(live = liveSession(sessionInfo({ history }))) {
    const user = userEvent.setup();
    render(Conversation, { session: live.session, onclose: vi.fn() });
    await user.click(screen.getByTestId("prompt-input"));
    await user.keyboard("{Control>}f{/Control}");
    const input = (await screen.findByTestId("find-input")) as HTMLInputElement;
    await waitFor(() => expect(document.activeElement).toBe(input));
    return { live, user, input, count: () => screen.getByTestId("find-count").textContent };
  }

  const current = () => document.querySelector("mark.find-current") as HTMLElement | null;

  it("counts across messages and a 100,000-line output and moves with Enter / Shift+Enter", async () => {
    const { user, input, count } = await openFind();
    await user.type(input, "needle");
    await waitFor(() => expect(count()).toBe("1 of 4"));
    // The prompt's match is current; every shown match is marked.
    expect(current()?.closest("[data-testid=user-text]")).not.toBeNull();
    expect(screen.getByTestId("message-list").querySelectorAll("mark.find-hit").length).toBe(3);
    await waitFor(() => expect(revealed.at(-1)).toBe(current()));

    await user.keyboard("{Enter}");
    await waitFor(() => expect(count()).toBe("2 of 4"));
    expect(current()?.closest("[data-testid=assistant-text]")?.textContent).toContain("Looking for the needle now.");

    // The third is in the collapsed result: it opens, and the list scrolls to the row.
    const card = document.querySelector('[data-tool-use-id="t-big"]') as HTMLElement;
    expect(within(card).queryByTestId("tool-result")).toBeNull();
    await user.keyboard("{Enter}");
    await waitFor(() => expect(count()).toBe("3 of 4"));
    await waitFor(() => expect(current()?.textContent).toBe("Needle"));
    const row = current()!.closest(".vlist-row") as HTMLElement;
    expect(row.dataset.index).toBe(String(NEEDLE_LINE));
    expect(row.textContent).toBe(`row ${NEEDLE_LINE} has the Needle`);
    expect(within(card).getByTestId("tool-expand").getAttribute("aria-expanded")).toBe("true");
    expect(within(card).getByTestId("result-text").querySelectorAll(".vlist-row").length).toBeLessThan(100);
    await waitFor(() => expect(revealed.at(-1)).toBe(current()));

    await user.keyboard("{Enter}");
    await waitFor(() => expect(count()).toBe("4 of 4"));
    await user.keyboard("{Enter}");
    await waitFor(() => expect(count()).toBe("1 of 4")); // wraps
    await user.keyboard("{Shift>}{Enter}{/Shift}");
    await waitFor(() => expect(count()).toBe("4 of 4"));
    await user.click(screen.getByTestId("find-prev"));
    await waitFor(() => expect(count()).toBe("3 of 4"));
    await user.click(screen.getByTestId("find-next"));
    await waitFor(() => expect(count()).toBe("4 of 4"));
  });

  it("matches case only when asked", async () => {
    const { user, input, count } = await openFind();
    await user.type(input, "Needle");
    await waitFor(() => expect(count()).toBe("1 of 4"));
    const toggle = screen.getByTestId("find-case");
    expect(toggle.getAttribute("aria-pressed")).toBe("false");
    await user.click(toggle);
    expect(toggle.getAttribute("aria-pressed")).toBe("true");
    await waitFor(() => expect(count()).toBe("1 of 1"));
    await waitFor(() => expect(current()?.closest(".vlist-row")).not.toBeNull());
    await user.click(toggle);
    await waitFor(() => expect(count()).toBe("1 of 4"));
    await user.clear(input);
    await user.type(input, "haystack");
    await waitFor(() => expect(count()).toBe("0 of 0"));
    expect(document.querySelector("mark.find-hit")).toBeNull();
  });

  it("finds in live Bash output and in a loaded saved output, counting new output as it comes", async () => {
    const live = liveSession(sessionInfo(), {
      read_persisted_output: () => ({ text: "saved\nwith a needle inside\n", next_offset: 26, total_bytes: 26 }),
    });
    const user = userEvent.setup();
    render(Conversation, { session: live.session, onclose: vi.fn() });
    await user.type(screen.getByTestId("prompt-input"), "go{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    const turn = live.turns[0]!;
    turn.send(queued("t-saved", 1, false, "Bash", "Bash cat big.log"));
    turn.send({
      type: "tool_completed",
      tool_use_id: "t-saved",
      content: [{ type: "text", text: "output saved" }],
      is_error: false,
      error: null,
      denied: false,
      cancelled: false,
      display: null,
      persisted_path: "/o/big.txt",
      persisted_bytes: 26,
      elapsed_ms: 3,
      changed_files: [],
    });
    turn.send(queued("t-live", 2, false, "Bash", "Bash make"));
    turn.send({ type: "tool_started", tool_use_id: "t-live" });
    turn.send({ type: "tool_progress", tool_use_id: "t-live", progress: { kind: "output", text: "compiling needle.c\n" } });
    await user.click(await screen.findByTestId("persisted-load"));
    await screen.findByTestId("persisted-text");

    await user.keyboard("{Control>}f{/Control}");
    const input = await screen.findByTestId("find-input");
    await user.type(input, "needle");
    const count = () => screen.getByTestId("find-count").textContent;
    await waitFor(() => expect(count()).toBe("1 of 2"));
    expect(current()?.closest("[data-testid=persisted-text]")).not.toBeNull();
    await user.keyboard("{Enter}");
    await waitFor(() => expect(current()?.closest("[data-testid=tool-progress]")).not.toBeNull());

    // More output while the bar is open is counted (and marked) without moving the current match.
    turn.send({ type: "tool_progress", tool_use_id: "t-live", progress: { kind: "output", text: "linking needle\n" } });
    await waitFor(() => expect(count()).toBe("2 of 3"));
    expect(screen.getByTestId("tool-progress").querySelectorAll("mark.find-hit")).toHaveLength(2);
  });

  it("Esc closes the bar without aborting the running turn, and the caret goes back to the box", async () => {
    const live = liveSession(sessionInfo({ history }));
    const user = userEvent.setup();
    render(Conversation, { session: live.session, onclose: vi.fn() });
    const box = screen.getByTestId("prompt-input");
    await user.type(box, "go{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    await user.keyboard("{Control>}f{/Control}");
    const input = await screen.findByTestId("find-input");
    await user.type(input, "needle");
    await waitFor(() => expect(document.querySelector("mark.find-hit")).not.toBeNull());
    await user.keyboard("{Escape}");
    expect(screen.queryByTestId("find-bar")).toBeNull();
    expect(document.querySelector("mark.find-hit")).toBeNull();
    expect(live.called("abort_turn")).toHaveLength(0);
    expect(document.activeElement).toBe(box);
    // Escape outside the bar still stops the turn.
    await user.keyboard("{Escape}");
    expect(live.called("abort_turn")).toHaveLength(1);
  });

  it("Esc in the bar neither denies a waiting request nor aborts; the focus goes back to the request", async () => {
    const live = liveSession(sessionInfo({ history }));
    const user = userEvent.setup();
    render(Conversation, { session: live.session, onclose: vi.fn() });
    await user.type(screen.getByTestId("prompt-input"), "go{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    live.turns[0]!.send(queued("tu-r-bash", 1, false, "Bash", "Bash git status && rm -rf build"));
    live.turns[0]!.send({ type: "permission_requested", request: bashRequest() });
    const dialog = await screen.findByTestId("permission-dialog");
    await waitFor(() => expect(document.activeElement).toBe(dialog));
    await pastArmDelay();
    await user.keyboard("{Control>}f{/Control}");
    const input = await screen.findByTestId("find-input");
    await waitFor(() => expect(document.activeElement).toBe(input));
    await user.type(input, "needle");
    await user.keyboard("{Escape}");
    expect(screen.queryByTestId("find-bar")).toBeNull();
    expect(live.called("answer_permission")).toHaveLength(0);
    expect(live.called("abort_turn")).toHaveLength(0);
    expect(document.activeElement).toBe(dialog);
  });

  it("the close button closes it too, and Ctrl+F again reopens it empty", async () => {
    const { user, input, count } = await openFind();
    await user.type(input, "needle");
    await waitFor(() => expect(count()).toBe("1 of 4"));
    await user.click(screen.getByTestId("find-close"));
    expect(screen.queryByTestId("find-bar")).toBeNull();
    await user.keyboard("{Control>}f{/Control}");
    const again = (await screen.findByTestId("find-input")) as HTMLInputElement;
    expect(again.value).toBe("");
    expect(screen.getByTestId("find-count").textContent).toBe("0 of 0");
  });
});
