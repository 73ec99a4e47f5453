import { describe, expect, it } from "vitest";
import { fireEvent, render, screen } from "@testing-library/svelte";
import TextLines from "../lib/components/TextLines.svelte";

const LINES = 100_000;
const big = Array.from({ length: LINES }, (_, i) => `line ${i}`).join("\n");

describe("VirtualList (through TextLines)", () => {
  it("keeps only a window of rows in the DOM for 100,000 lines and follows scrolling", async () => {
    render(TextLines, { text: big, testid: "out" });
    const list = screen.getByTestId("out");
    expect(list.dataset.count).toBe(String(LINES));
    const rows = () => list.querySelectorAll(".vlist-row");
    expect(rows().length).toBeGreaterThan(0);
    expect(rows().length).toBeLessThan(100);
    expect(rows()[0]!.textContent).toBe("line 0");

    // Scroll to the middle: the rows shown are the ones around line 50,000, still few.
    list.scrollTop = 50_000 * 18;
    await fireEvent.scroll(list);
    const indices = [...rows()].map((r) => Number((r as HTMLElement).dataset.index));
    expect(indices).toContain(50_000);
    expect(rows().length).toBeLessThan(100);
    const row = [...rows()].find((r) => (r as HTMLElement).dataset.index === "50000") as HTMLElement;
    expect(row.textContent).toBe("line 50000");
    // Positioned absolutely inside a spacer as tall as all lines.
    expect(row.style.transform).toBe(`translateY(${50_000 * 18}px)`);
    expect((list.firstElementChild as HTMLElement).style.height).toBe(`${LINES * 18}px`);

    list.scrollTop = (LINES - 1) * 18;
    await fireEvent.scroll(list);
    expect([...rows()].some((r) => r.textContent === `line ${LINES - 1}`)).toBe(true);
  });

  it("renders short text without virtualisation", () => {
    render(TextLines, { text: "a\nb", testid: "small" });
    expect(screen.getByTestId("small").tagName).toBe("PRE");
  });
});
