// A day-long session: the conversation draws only the rows in view once it is long, keeps the
// reader's place (at the bottom while output comes, put when they scrolled up), and find in
// conversation still reaches rows that are not drawn. jsdom has no layout: rows have their
// estimated heights until a (fake) ResizeObserver reports a measure, and the viewport is
// FALLBACK_VIEW tall.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import type { HistoryMessage } from "../bindings/HistoryMessage";
import Conversation from "../lib/components/Conversation.svelte";
import { FALLBACK_VIEW, ROW_GAP, VIRTUALISE_ABOVE, estimateHeight } from "../lib/conversation/layout";
import { liveSession, sessionInfo, type Live } from "./live";
import { answered, said } from "./messages";

/** A ResizeObserver the test drives: `resize` reports a row's new height to whoever watches it. */
class FakeResizeObserver {
  static all: FakeResizeObserver[] = [];
  targets = new Set<Element>();
  constructor(private callback: ResizeObserverCallback) {
    FakeResizeObserver.all.push(this);
  }
  observe(target: Element) {
    this.targets.add(target);
  }
  unobserve(target: Element) {
    this.targets.delete(target);
  }
  disconnect() {
    this.targets.clear();
  }
  static resize(target: Element, height: number) {
    const entry = {
      target,
      contentRect: { height, width: 600 },
      borderBoxSize: [{ blockSize: height, inlineSize: 600 }],
      contentBoxSize: [{ blockSize: height, inlineSize: 600 }],
    } as unknown as ResizeObserverEntry;
    for (const observer of FakeResizeObserver.all) {
      if (observer.targets.has(target)) observer.callback([entry], observer as unknown as ResizeObserver);
    }
  }
}

/** `pairs` prompts, each answered: twice as many items. */
function pairs(count: number, needleAt = -1): HistoryMessage[] {
  return Array.from({ length: count }, (_, i) => [said(i === needleAt ? `prompt ${i} with the needle` : `prompt ${i}`), answered(`answer ${i}`)]).flat();
}

const list = () => screen.getByTestId("message-list");
const scroller = () => screen.getByTestId("conversation-scroll");
const rows = () => [...list().querySelectorAll<HTMLElement>(":scope > .row")];
const keys = () => rows().map((r) => r.dataset.key!);
const bottomOf = (live: Live) =>
  live.session.items.reduce((sum, item) => sum + estimateHeight(item) + ROW_GAP, 0) - ROW_GAP - FALLBACK_VIEW;

/** The reader scrolls (a wheel turn, then the scroll it causes). */
async function userScrollTo(top: number) {
  const el = scroller();
  await fireEvent.wheel(el, { deltaY: top - el.scrollTop });
  el.scrollTop = top;
  await fireEvent.scroll(el);
}

function open(history: HistoryMessage[]) {
  const live = liveSession(sessionInfo({ history }));
  render(Conversation, { session: live.session, onclose: vi.fn() });
  return live;
}

const box = (top: number, height: number) => ({ top, bottom: top + height, height, left: 0, right: 600, width: 600, x: 0, y: top }) as DOMRect;

/**
 * A layout for jsdom, which has none: the viewport is FALLBACK_VIEW tall at y 0, and the rows
 * drawn stack below the list's top padding, each as tall as `heights` says (what it "really" is
 * once drawn), else its estimate. `resize` changes a row's height and reports it.
 */
function fakeLayout(live: Live) {
  const heights = new Map<string, number>();
  const heightOf = (key: string) => heights.get(key) ?? estimateHeight(live.session.items.find((i) => i.key === key)!);
  vi.spyOn(Element.prototype, "getBoundingClientRect").mockImplementation(function (this: Element) {
    const top = scroller().scrollTop;
    if (this === scroller()) return box(0, FALLBACK_VIEW);
    if (this === list()) return box(-top, 0);
    if (this.parentElement !== list()) return box(0, 0);
    let y = parseFloat(list().style.paddingTop || "0") - top;
    for (const row of rows()) {
      if (row === this) break;
      y += heightOf(row.dataset.key!) + ROW_GAP;
    }
    return box(y, heightOf((this as HTMLElement).dataset.key!));
  });
  return {
    heights,
    resize(row: HTMLElement, height: number) {
      heights.set(row.dataset.key!, height);
      FakeResizeObserver.resize(row, height);
    },
    /** The row at the viewport's top and where it starts. */
    top() {
      const row = rows().find((r) => r.getBoundingClientRect().bottom > 0)!;
      return { key: row.dataset.key!, y: row.getBoundingClientRect().top };
    },
    yOf(key: string) {
      return rows().find((r) => r.dataset.key === key)?.getBoundingClientRect().top ?? null;
    },
  };
}

describe("a long conversation", () => {
  beforeEach(() => {
    FakeResizeObserver.all = [];
    vi.stubGlobal("ResizeObserver", FakeResizeObserver);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it("draws every item up to the threshold, as a short session always did", () => {
    open(pairs(VIRTUALISE_ABOVE / 2));
    expect(rows()).toHaveLength(VIRTUALISE_ABOVE);
    expect(list().dataset.virtual).toBeUndefined();
    expect(screen.getAllByTestId("user-text")).toHaveLength(VIRTUALISE_ABOVE / 2);
  });

  it("draws a bounded window of a 2,000-item list, at the bottom to begin with", async () => {
    const live = open(pairs(1000));
    expect(live.session.items).toHaveLength(2000);
    expect(list().dataset.virtual).toBe("true");
    await waitFor(() => expect(keys()).toContain("i2000"));
    expect(rows().length).toBeLessThan(100);
    expect(keys()).not.toContain("i1");
    expect(scroller().scrollTop).toBe(bottomOf(live));
    // The rows not drawn still take their room: the scroll bar is the whole conversation's.
    expect(parseFloat(list().style.paddingTop)).toBeGreaterThan(50_000);
  });

  it("draws other rows as the reader scrolls, still a bounded number", async () => {
    open(pairs(1000));
    await waitFor(() => expect(keys()).toContain("i2000"));
    await userScrollTo(0);
    expect(keys()[0]).toBe("i1");
    expect(keys()).not.toContain("i2000");
    expect(rows().length).toBeLessThan(100);
    await userScrollTo(40_000);
    const middle = keys().map((k) => Number(k.slice(1)));
    expect(Math.min(...middle)).toBeGreaterThan(700);
    expect(Math.max(...middle)).toBeLessThan(900);
    expect(rows().length).toBeLessThan(100);
  });

  it("follows new items while the reader is at the bottom", async () => {
    const live = open(pairs(1000));
    await waitFor(() => expect(keys()).toContain("i2000"));
    live.session.addNotice("something new");
    await waitFor(() => expect(keys()).toContain("i2001"));
    await waitFor(() => expect(scroller().scrollTop).toBe(bottomOf(live)));
    expect(screen.getAllByTestId("notice").at(-1)!.textContent).toBe("something new");
  });

  it("keeps following through scroll events the reader did not cause", async () => {
    const live = open(pairs(1000));
    await waitFor(() => expect(keys()).toContain("i2000"));
    // The scroll event of the list's own scrolling to the bottom (jsdom sends none itself)…
    await fireEvent.scroll(scroller());
    // …then content shrinking under the viewport moves it up (the browser clamps): no wheel, no keys.
    scroller().scrollTop -= 500;
    await fireEvent.scroll(scroller());
    live.session.addNotice("something new");
    await waitFor(() => expect(scroller().scrollTop).toBe(bottomOf(live)));
  });

  it("stays put when the reader scrolled up: new items and rows above growing do not move the view", async () => {
    const live = open(pairs(1000));
    const layout = fakeLayout(live);
    await waitFor(() => expect(keys()).toContain("i2000"));
    await userScrollTo(40_000);
    const seen = layout.top();
    live.session.addNotice("something new");
    await new Promise((r) => setTimeout(r, 50));
    expect(scroller().scrollTop).toBe(40_000);
    expect(keys()).not.toContain("i2001");

    // A row drawn above the viewport (the overscan) grows by 100 px: the view moves down by as
    // much, so what the reader looks at stays where it was.
    const above = rows()[0]!;
    const estimated = estimateHeight(live.session.items.find((i) => i.key === above.dataset.key)!);
    layout.resize(above, estimated + 100);
    expect(scroller().scrollTop).toBe(40_100);
    expect(layout.yOf(seen.key)).toBe(seen.y);
    // A row below the viewport's top grows downwards: nothing to make up for.
    layout.resize(rows().at(-1)!, 500);
    expect(scroller().scrollTop).toBe(40_100);
    expect(layout.yOf(seen.key)).toBe(seen.y);
  });

  it("does not jump while the reader scrolls up into rows taller than their estimates", async () => {
    const live = open(pairs(1000));
    const layout = fakeLayout(live);
    for (const item of live.session.items) layout.heights.set(item.key, estimateHeight(item) + 30);
    await waitFor(() => expect(keys()).toContain("i2000"));
    await userScrollTo(60_000);
    for (let step = 0; step < 10; step++) {
      const before = layout.top();
      await userScrollTo(scroller().scrollTop - 400);
      // The rows drawn above come in taller than the padding that stood for them: the view is
      // moved by as much, and the row that was at the top is exactly 400 px lower.
      await waitFor(() => expect(layout.yOf(before.key)).toBe(before.y + 400));
    }
  });

  it("at the bottom, a row growing (a streaming answer) keeps the view at the bottom", async () => {
    const live = open(pairs(1000));
    await waitFor(() => expect(keys()).toContain("i2000"));
    const last = rows().at(-1)!;
    FakeResizeObserver.resize(last, 900);
    const estimated = estimateHeight(live.session.items.at(-1)!);
    expect(scroller().scrollTop).toBe(bottomOf(live) + 900 - estimated);
  });
});

describe("find in a long conversation", () => {
  const revealed: Element[] = [];
  beforeEach(() => {
    revealed.length = 0;
    vi.spyOn(Element.prototype, "scrollIntoView").mockImplementation(function (this: Element) {
      revealed.push(this);
    });
  });
  afterEach(() => vi.restoreAllMocks());

  it("finds a match in a row not drawn, draws it, marks it and scrolls to the mark", async () => {
    const live = open(pairs(1000, 3));
    await waitFor(() => expect(keys()).toContain("i2000"));
    expect(screen.queryByText(/with the needle/)).toBeNull();
    const user = userEvent.setup();
    await user.click(screen.getByTestId("prompt-input"));
    await user.keyboard("{Control>}f{/Control}");
    const input = await screen.findByTestId("find-input");
    await user.type(input, "needle");
    await waitFor(() => expect(screen.getByTestId("find-count").textContent).toBe("1 of 1"));
    const mark = await waitFor(() => {
      const m = document.querySelector<HTMLElement>("mark.find-current");
      expect(m).not.toBeNull();
      return m!;
    });
    expect(mark.textContent).toBe("needle");
    // The prompt holding it is the fourth: item i7 (prompt, answer, prompt, …).
    expect(mark.closest<HTMLElement>(".row")!.dataset.key).toBe("i7");
    expect(live.session.items.find((i) => i.key === "i7")).toMatchObject({ kind: "user", text: "prompt 3 with the needle" });
    await waitFor(() => expect(revealed.at(-1)).toBe(mark));
    expect(rows().length).toBeLessThan(100);
  });
});
