// A model server on this machine (Ollama, llama.cpp's server, LM Studio…), offered on the first
// run: the shell needs no key for one, so setting its base URL is all it takes.
import type { AppSettings } from "../bindings/AppSettings";
import type { ModelListing } from "../bindings/ModelListing";

/** Ollama's address; llama.cpp's server listens on :8080 by default. */
export const DEFAULT_LOCAL_SERVER_URL = "http://localhost:11434";

/**
 * Whether an http(s) URL names this machine, the way the shell decides it (`is_local_server`):
 * only such a server is used without a key. Null when the text is no http(s) URL at all: the
 * shell refuses it with its own message, so the UI does not guess one.
 */
export function isLocalServerUrl(text: string): boolean | null {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** The settings that use the server; the rest stay as they are (all unset on a first run). */
export function localServerSettings(baseUrl: string, current: AppSettings | null): AppSettings {
  return {
    model: null,
    fast_model: null,
    default_mode: null,
    max_concurrency: null,
    max_model_calls: null,
    custom_headers: null,
    ...current,
    base_url: baseUrl.trim(),
  };
}

/** What a check of the server found, in words: how many models, and the first few names. */
export function describeModels(models: ModelListing[]): string {
  if (models.length === 0) return "The server answers, but offers no models yet (with Ollama: ollama pull NAME).";
  const SHOWN = 5;
  const names = models.slice(0, SHOWN).map((m) => m.id);
  const more = models.length > SHOWN ? `, and ${models.length - SHOWN} more` : "";
  const count = models.length === 1 ? "1 model" : `${models.length} models`;
  return `The server offers ${count}: ${names.join(", ")}${more}.`;
}
