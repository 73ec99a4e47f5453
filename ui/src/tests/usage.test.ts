import { describe, expect, it } from "vitest";
import { cacheText, contextLevel, contextPercent, contextText, contextTooltip, formatUsd, shortTokens } from "../lib/usage";

const meter = (tokens: number, window = 200_000, compacted = false) => ({ tokens, window, compacted });

describe("context meter wording", () => {
  it("says how much of the window is used, in whole percent", () => {
    expect(contextText(meter(84_000))).toBe("42% of 200k context");
    expect(contextText(meter(0))).toBe("0% of 200k context");
    expect(contextPercent(meter(300))).toBe("<1");
    expect(contextText(meter(500_000, 1_000_000))).toBe("50% of 1M context");
    expect(contextText(meter(1200, 0))).toBe("1k tokens of context");
    expect(contextTooltip(meter(84_123))).toBe("84,123 of 200,000 tokens: the latest reply's whole input (cached or not) and output");
  });

  it("says a compaction ran and the figure is the old one", () => {
    expect(contextText(meter(150_000, 200_000, true))).toBe("75% of 200k context · compacted — updates with the next reply");
    expect(contextTooltip(meter(150_000, 200_000, true))).toContain("; compacted — updates with the next reply");
  });

  it("changes level past 70% and 90%", () => {
    expect([0, 140_000, 140_001, 180_000, 180_001, 250_000].map((t) => contextLevel(meter(t)))).toEqual([
      "normal",
      "normal",
      "high",
      "high",
      "critical",
      "critical",
    ]);
    expect(contextLevel(meter(5, 0))).toBe("normal");
  });

  it("formats token counts and dollars", () => {
    expect([950, 128_000, 200_000, 1_000_000, 1_050_000].map(shortTokens)).toEqual(["950", "128k", "200k", "1M", "1.05M"]);
    expect([0, 0.00004, 0.0123, 0.98765, 1.234, 25].map(formatUsd)).toEqual(["$0.00", "<$0.0001", "$0.0123", "$0.9877", "$1.23", "$25.00"]);
  });

  it("says how much the session read from the cache and what that saved", () => {
    expect(cacheText({ read_tokens: 1_200_000, saved_usd: 0.45 })).toBe("cache 1.2M read, saved $0.4500");
    expect(cacheText({ read_tokens: 1_200_000, saved_usd: 1.234 })).toBe("cache 1.2M read, saved $1.23");
    expect(cacheText({ read_tokens: 950, saved_usd: null })).toBe("cache 950 read");
    expect(cacheText({ read_tokens: 0, saved_usd: 0 })).toBeNull();
  });
});
