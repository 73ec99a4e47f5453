// One prompt's turn as the session store runs it. Each turn's events come on the turn's own IPC
// channel, and the last of them (its `turn_ended`, a notice) may arrive after the `send_prompt`
// command resolved: the turn's token tags its events so a late one is never taken for the next
// turn's, and the store waits (briefly) for the turn's own end before starting the next one.
import type { Event } from "../../bindings/Event";

/** How long the store waits, once the command resolved, for the turn's `turn_ended` event. The
 *  command resolving is the authoritative end: if the event got lost, the turn ends without it. */
export const END_GRACE_MS = 1000;

export class OpenTurn {
  /** Whether the turn's own `turn_ended` came in (on its channel). */
  ended = false;
  private wake: (() => void) | null = null;

  constructor(readonly token: number) {}

  markEnded() {
    this.ended = true;
    this.wake?.();
  }

  /** Resolves once the turn's `turn_ended` came in, or after `ms` at most. */
  waitForEnd(ms: number = END_GRACE_MS): Promise<void> {
    if (this.ended) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}

/**
 * Whether an event of a turn that has already finished in the view may still be applied.
 * Nothing of it may change the session's status: its end was settled when its command resolved,
 * and a permission request of an ended turn can no longer be answered (the engine denied it when
 * the turn ended). What only updates the old turn's own tool cards, or adds a line, is kept, so
 * nothing said is lost. The rest (streamed text, messages, new calls, usage, the task list, the
 * mode) goes into whatever is open now: kept while no newer turn started, dropped once one did,
 * since it would land in the newer turn's message or put older figures over its own.
 */
export function keepLate(event: Event, newerTurnStarted: boolean): boolean {
  switch (event.type) {
    case "turn_started":
    case "turn_ended":
    case "permission_requested":
      return false;
    case "tool_input_delta":
    case "tool_input_abandoned":
    case "tool_started":
    case "tool_progress":
    case "tool_completed":
    case "notice":
    case "retrying":
    case "error":
      return true;
    default:
      return !newerTurnStarted;
  }
}
