import { describe, expect, it } from "vitest";
import type { RetryReason } from "../bindings/RetryReason";
import { retryReasonText } from "../lib/retry";

describe("retryReasonText", () => {
  it("words every reason the engine sends, never its Rust form", () => {
    const reasons: RetryReason[] = [
      { kind: "status", status: 529, error_type: "overloaded_error", message: "Overloaded" },
      { kind: "status", status: 429, error_type: "rate_limit_error", message: "Number of request tokens has exceeded your per-minute rate limit" },
      { kind: "status", status: 503, error_type: "", message: "" },
      { kind: "connection", message: "error sending request for url (https://api.anthropic.com/v1/messages)" },
      { kind: "stream_failed", message: "the stream ended before message_stop" },
    ];
    expect(reasons.map(retryReasonText)).toEqual([
      "the API is overloaded (529 overloaded_error): Overloaded",
      "the API's rate limit was reached (429 rate_limit_error): Number of request tokens has exceeded your per-minute rate limit",
      "the API answered with an error (503)",
      "the connection failed: error sending request for url (https://api.anthropic.com/v1/messages)",
      "the response stream broke off: the stream ended before message_stop",
    ]);
  });
});
