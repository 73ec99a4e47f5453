// Going to a place in a session: a search hit in the sidebar, a prompt in the navigator.
//
// A hit may be in a session that is not open yet: the sidebar asks for the place here
// (`reveals.ask`), then opens the session the way a click on its row does; the session's screen,
// once mounted and shown, takes the place (`reveals.take`) and goes there. The place waits here
// meanwhile, since the screen does not exist when it is asked for.
//
// Once there, the screen's `Spotlight` (a context) opens the call's result and lights the card or
// the prompt for a moment, so the eye finds it in a screen full of cards.
import { getContext, setContext } from "svelte";
import type { ViewMemory } from "./viewMemory";

/** Where in a session to go: a call's card (its result opened), else a prompt. */
export interface RevealTarget {
  /** The prompt's number (0: before the first prompt, nowhere to go). */
  turn: number;
  /** The call whose card to show, when the place is a tool input or result. */
  toolUseId: string | null;
}

class PendingReveals {
  /** The place each session's screen is to go to, by session id. */
  private byId: Record<string, RevealTarget> = $state({});

  /** Asks the session's screen to go to `target` once it shows (replacing an earlier ask). */
  ask(sessionId: string, target: RevealTarget) {
    this.byId[sessionId] = target;
  }

  /** The place asked for the session, if any (reactive: a screen watches it). */
  waiting(sessionId: string): RevealTarget | null {
    return this.byId[sessionId] ?? null;
  }

  /** Takes the place asked for the session (it is gone from here). */
  take(sessionId: string): RevealTarget | null {
    const target = this.byId[sessionId] ?? null;
    if (target) delete this.byId[sessionId];
    return target;
  }

  /** The session could not be opened: nothing waits for it. */
  cancel(sessionId: string) {
    delete this.byId[sessionId];
  }
}

/** The places asked for, app-wide (the sidebar and the sessions' screens share it). */
export const reveals = new PendingReveals();

/** How long a card or prompt gone to stays lit. */
export const FLASH_MS = 2000;

/** The view-memory id of a call's opened result (the card's own, see ToolCard). */
export const resultOpenId = (callId: string) => `r:${callId}`;

/** What a session's screen lights up and opens when it goes somewhere. */
export class Spotlight {
  /** What is lit now: `call:<id>` (a card) or `turn:<n>` (a prompt); null when nothing is. */
  lit: string | null = $state(null);
  /** The latest call asked to open its result; `nav` counts the asks, so asking for the same
   *  card again opens it again (the user may have closed it). */
  opened: { callId: string; nav: number } | null = $state(null);
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly memory: ViewMemory | undefined) {}

  /** Opens the call's result (now if the card is drawn, else when it is) and lights the card. */
  call(callId: string) {
    this.memory?.setOpen(resultOpenId(callId), true);
    this.opened = { callId, nav: (this.opened?.nav ?? 0) + 1 };
    this.flash(`call:${callId}`);
  }

  /** Lights a prompt. */
  turn(turn: number) {
    this.flash(`turn:${turn}`);
  }

  private flash(key: string) {
    this.lit = key;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (this.lit === key) this.lit = null;
    }, FLASH_MS);
  }

  dispose() {
    clearTimeout(this.timer);
  }
}

const KEY = Symbol("nerve.spotlight");

export function setSpotlight(spotlight: Spotlight) {
  setContext(KEY, spotlight);
}

/** The screen's spotlight, or none (a card or list shown outside a session's screen). */
export function spotlightContext(): Spotlight | undefined {
  return getContext<Spotlight | undefined>(KEY);
}
