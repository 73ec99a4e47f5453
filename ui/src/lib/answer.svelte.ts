// Delivering one answer to a permission request: at most one at a time, and a failure is kept
// for the panel to show (the request then stays, so the user can try again).
import type { UserAnswer } from "../bindings/UserAnswer";
import { answerPermission, errorText } from "./ipc";

export interface AnswerTarget {
  sessionId: string;
  requestId: string;
  onanswered: (requestId: string) => void;
}

export class Answerer {
  sending = $state(false);
  failure: string | null = $state(null);
  readonly #target: () => AnswerTarget;

  /** `target` is read when sending, so it always sees the panel's current props. */
  constructor(target: () => AnswerTarget) {
    this.#target = target;
  }

  /** Returns whether the answer was delivered (the plan panel acts on an approval only then). */
  async send(answer: UserAnswer): Promise<boolean> {
    if (this.sending) return false;
    const { sessionId, requestId, onanswered } = this.#target();
    this.sending = true;
    this.failure = null;
    try {
      await answerPermission(sessionId, requestId, answer);
      onanswered(requestId);
      return true;
    } catch (e) {
      this.failure = errorText(e);
      return false;
    } finally {
      this.sending = false;
    }
  }
}
