// What the user opened in the conversation (a call's result, a message's thinking), by id. A
// virtualised list drops the rows out of view and draws them again when they come back: without
// this, a row scrolled away would come back closed.
import { getContext, setContext } from "svelte";

export class ViewMemory {
  constructor(
    private readonly opened = new Set<string>(),
    private readonly prefix = "",
  ) {}

  isOpen(id: string): boolean {
    return this.opened.has(this.prefix + id);
  }

  setOpen(id: string, open: boolean) {
    if (open) this.opened.add(this.prefix + id);
    else this.opened.delete(this.prefix + id);
  }

  /** The same memory for a view nested in this one (a sub-agent's transcript), whose ids would
   *  otherwise meet the outer view's: its items are keyed from `i1` too. */
  scoped(prefix: string): ViewMemory {
    return new ViewMemory(this.opened, `${this.prefix}${prefix}/`);
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
