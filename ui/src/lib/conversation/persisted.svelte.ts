// Saved outputs (results too large for the conversation, written to a file by the engine) as far
// as the user has loaded them, by path. Kept by the session rather than by the card showing them,
// so that find in conversation searches what was loaded and a card drawn again keeps it.
import { getContext, setContext } from "svelte";

export interface LoadedOutput {
  text: string;
  /** Bytes read so far (where the next chunk starts). */
  loaded: number;
  /** The file's size in bytes, once the shell said it. */
  total: number | null;
}

export class PersistedOutputs {
  byPath: Record<string, LoadedOutput> = $state.raw({});

  get(path: string): LoadedOutput | undefined {
    return this.byPath[path];
  }

  set(path: string, output: LoadedOutput) {
    this.byPath = { ...this.byPath, [path]: output };
  }
}

const KEY = Symbol("nerve.persisted-outputs");

export function setPersistedOutputs(outputs: PersistedOutputs) {
  setContext(KEY, outputs);
}

/** The session's saved outputs, or none outside a session's screen (a card shown on its own). */
export function persistedOutputs(): PersistedOutputs | undefined {
  return getContext<PersistedOutputs | undefined>(KEY);
}
