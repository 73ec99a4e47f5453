// A model server on this machine (Ollama, llama.cpp's server, LM Studio…), offered on the first
// run: the shell needs no key for one and decides what counts as this machine (use_local_server).
import type { ModelListing } from "../bindings/ModelListing";

/** Ollama's address; llama.cpp's server listens on :8080 by default. */
export const DEFAULT_LOCAL_SERVER_URL = "http://localhost:11434";

/** Ollama's OpenAI-compatible endpoint, as its documentation gives it (with or without `/v1`,
 *  the engine puts `chat/completions` under `/v1` once). */
export const DEFAULT_LOCAL_OPENAI_URL = "http://localhost:11434/v1";

/** What a check of the server found, in words: how many models, and the first few names. */
export function describeModels(models: ModelListing[]): string {
  if (models.length === 0) return "The server answers, but offers no models yet (with Ollama: ollama pull NAME).";
  const SHOWN = 5;
  const names = models.slice(0, SHOWN).map((m) => m.id);
  const more = models.length > SHOWN ? `, and ${models.length - SHOWN} more` : "";
  const count = models.length === 1 ? "1 model" : `${models.length} models`;
  return `The server offers ${count}: ${names.join(", ")}${more}.`;
}
