import type { RetryReason } from "../bindings/RetryReason";

/** Why a model request is being sent again, in words ("the API is overloaded (529): Overloaded"). */
export function retryReasonText(reason: RetryReason): string {
  switch (reason.kind) {
    case "status": {
      const what =
        reason.status === 529 || reason.error_type === "overloaded_error"
          ? "the API is overloaded"
          : reason.status === 429
            ? "the API's rate limit was reached"
            : "the API answered with an error";
      const code = reason.error_type ? `${reason.status} ${reason.error_type}` : `${reason.status}`;
      return reason.message ? `${what} (${code}): ${reason.message}` : `${what} (${code})`;
    }
    case "connection":
      return `the connection failed: ${reason.message}`;
    case "stream_failed":
      return `the response stream broke off: ${reason.message}`;
  }
}
