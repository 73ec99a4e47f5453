// Conversation messages in the engine's typed shapes (the bindings), for tests: the events of a
// live turn and the history of a resumed one. The engine reads its API messages into these; tests
// of that reading are the engine's (`model/view.rs`).
import type { Event } from "../bindings/Event";
import type { HistoryMessage } from "../bindings/HistoryMessage";
import type { JsonValue } from "../bindings/serde_json/JsonValue";
import type { AttachmentView } from "../bindings/AttachmentView";
import type { MessageImage } from "../bindings/MessageImage";
import type { ResultBlock } from "../bindings/ResultBlock";

/** The live event of a user message: a prompt's words, pictures and attachments (empty for tool
 *  results). */
export function userMessage(text: string, images: MessageImage[] = [], attachments: AttachmentView[] = []): Event {
  return { type: "user_message", message: { text, images, attachments } };
}

/** The live event of a finished assistant message. */
export function assistantMessage(text: string, thinking = ""): Event {
  return { type: "assistant_message", message: { text, thinking } };
}

/** A user message of a history: a prompt, the answers to calls, or both. */
export type UserMessage = Extract<HistoryMessage, { role: "user" }>;

/** A message of the model in a history: its words and its calls. */
export type ModelMessage = Extract<HistoryMessage, { role: "assistant" }>;

/** A prompt in a history. */
export function said(text: string, images: MessageImage[] = [], attachments: AttachmentView[] = []): UserMessage {
  return { role: "user", words: { text, images, attachments }, tool_results: [] };
}

/** A model's message in a history, with the calls it made (`[id, name, input]`). */
export function answered(text: string, calls: [string, string, JsonValue?][] = [], thinking = ""): ModelMessage {
  return {
    role: "assistant",
    words: { text, thinking },
    tool_uses: calls.map(([id, name, input]) => ({ id, name, input: input ?? {} })),
  };
}

/** The user message answering calls in a history (`[tool_use_id, text or blocks, is_error]`). */
export function results(...answers: [string, string | ResultBlock[], boolean?][]): UserMessage {
  return {
    role: "user",
    words: { text: "", images: [], attachments: [] },
    tool_results: answers.map(([tool_use_id, content, is_error]) => ({
      tool_use_id,
      is_error: is_error ?? false,
      content: typeof content === "string" ? [{ type: "text", text: content }] : content,
    })),
  };
}
