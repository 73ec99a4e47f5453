// What the user opened in the conversation (a call's result, a message's thinking), by id. A
// virtualised list drops the rows out of view and draws them again when they come back: without
// this, a row scrolled away would come back closed.
import { getContext, setContext } from "svelte";

export class ViewMemory {
  private opened = new Set<string>();

  isOpen(id: string): boolean {
    return this.opened.has(id);
  }

  setOpen(id: string, open: boolean) {
    if (open) this.opened.add(id);
    else this.opened.delete(id);
  }
}

const KEY = Symbol("nerve.view-memory");

export function setViewMemory(memory: ViewMemory) {
  setContext(KEY, memory);
}

/** The conversation's memory of opened parts, or none (a component shown on its own). */
export function viewMemory(): ViewMemory | undefined {
  return getContext<ViewMemory | undefined>(KEY);
}
