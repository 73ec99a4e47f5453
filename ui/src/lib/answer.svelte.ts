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

/** One request of a batch and what to answer it. */
export interface BatchAnswer {
  requestId: string;
  answer: UserAnswer;
}

/**
 * Answering several requests of one batch at once: one `answer_permission` per request, all sent
 * together. The queue drops the delivered ones only once every answer has settled, so the panel
 * does not change under the user half-way (a batch left with one request becomes the single
 * dialog). The ones that failed stay, with the failure shown, to be answered again.
 */
export class BatchAnswerer {
  sending = $state(false);
  failure: string | null = $state(null);
  readonly #target: () => Omit<AnswerTarget, "requestId">;

  /** `target` is read when sending, so it always sees the panel's current props. */
  constructor(target: () => Omit<AnswerTarget, "requestId">) {
    this.#target = target;
  }

  async send(answers: BatchAnswer[]) {
    if (this.sending || answers.length === 0) return;
    const { sessionId, onanswered } = this.#target();
    this.sending = true;
    this.failure = null;
    const results = await Promise.allSettled(answers.map((a) => answerPermission(sessionId, a.requestId, a.answer)));
    const failures: string[] = [];
    results.forEach((result, i) => {
      if (result.status === "fulfilled") onanswered(answers[i]!.requestId);
      else failures.push(errorText(result.reason));
    });
    if (failures.length) {
      const count = failures.length === answers.length ? "" : ` (${failures.length} of ${answers.length})`;
      this.failure = `${failures[0]}${count}`;
    }
    this.sending = false;
  }
}
