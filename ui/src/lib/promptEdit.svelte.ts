// An earlier prompt being edited in place, to be resent. Held by the session's screen rather than
// by the editor itself: a long conversation draws only the rows in view, and the editor's row may
// be dropped and drawn again while the user scrolls; the edited text, the code choice and the
// engine's plan must survive that.
import type { AttachmentView } from "../bindings/AttachmentView";
import type { CodeRewindPlan } from "../bindings/CodeRewindPlan";
import { attachmentsOf, type Attachment } from "./attachments";
import { confirmedOnDisk } from "./changes";
import type { PromptImage } from "./conversation/types";
import { errorText, planRewind } from "./ipc";
import type { EditedPrompt } from "./promptForks";

/** The prompt as the conversation shows it. */
export interface EditablePrompt {
  turn: number;
  text: string;
  images: PromptImage[];
  /** What else it carried (only named: the engine keeps what the model read of them). */
  attachments?: AttachmentView[];
}

export class PromptEdit {
  readonly turn: number;
  /** The images that go again with the edited prompt (those the model reads). */
  readonly images: Attachment[];
  /** The prompt's images that cannot be sent again (a type the model does not read). */
  readonly imagesLeftOut: number;
  /** The prompt's attachments, which do not go again (a past prompt only names them: the user
   *  attaches them again in the prompt box). */
  readonly attachmentsLeftOut: number;
  text = $state("");
  /** Also put the files back as they were before the prompt. */
  withCode = $state(false);
  /** Files changed on disk since the agent's change that the user agreed to overwrite. */
  confirmed: string[] = $state([]);
  /** What a code rewind to the prompt would do; null until the engine answered. */
  plan: CodeRewindPlan | null = $state.raw(null);
  planFailure: string | null = $state(null);
  /** The resend is under way. */
  sending = $state(false);

  constructor(sessionId: string, prompt: EditablePrompt) {
    this.turn = prompt.turn;
    this.text = prompt.text;
    this.images = attachmentsOf(prompt.images);
    this.imagesLeftOut = prompt.images.length - this.images.length;
    this.attachmentsLeftOut = prompt.attachments?.length ?? 0;
    // Asked once, when the editor opens: whether there are files to offer putting back.
    planRewind(sessionId, prompt.turn).then(
      (plan) => (this.plan = plan),
      (e: unknown) => (this.planFailure = errorText(e)),
    );
  }

  /** How many files a code rewind would change (0 until the plan is known, or when it failed). */
  get files(): number {
    return this.plan?.files.length ?? 0;
  }

  /** Something to send: text, or images without text (as the prompt box allows). */
  get sendable(): boolean {
    return !this.sending && (this.text.trim() !== "" || this.images.length > 0);
  }

  /** What the resend does: the prompt's number, the new text and images, and the code rewind
   *  (with the files the user agreed to overwrite) when asked for and there is one to do. */
  edited(): EditedPrompt {
    const code = this.withCode && this.files > 0 ? { confirmed: confirmedOnDisk(this.plan, this.confirmed) } : null;
    return { turn: this.turn, text: this.text, images: this.images, code };
  }
}
