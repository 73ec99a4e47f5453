// What an Agent card needs from its session beyond its own call: the sub-agent's task (its id
// after a restart, whether it still runs), stopping it, its requests for permission, a finished
// sub-agent's transcript (read once), and the permission dialog's "Show sub-agent" (which opens a
// card that may not even be drawn yet). Set by the session's screen as context; a card shown
// without it (on its own, in tests) shows the live sub-agent and offers nothing else.
import { getContext, setContext } from "svelte";
import type { PermissionRequest } from "../bindings/PermissionRequest";
import type { SessionStore } from "./conversation/session.svelte";
import { fromHistory } from "./conversation/reducer";
import type { ConversationState } from "./conversation/types";
import * as ipc from "./ipc";
import type { ViewMemory } from "./viewMemory";

/** The parts of a session the cards use. */
export type SubagentSession = Pick<SessionStore, "id" | "permissions" | "taskForCall" | "stopTask">;

const NONE: PermissionRequest[] = [];

/** The view-memory id of an Agent card's open transcript. */
export const subagentOpenId = (callId: string) => `sa:${callId}`;

export class Subagents {
  /** The latest request to show a card's sub-agent; `nav` counts them, so asking for the same
   *  card again opens it again. */
  shown: { callId: string; nav: number } | null = $state(null);
  /** Finished sub-agents' transcripts as read, by agent id. */
  private transcripts = new Map<string, Promise<ConversationState>>();
  private read = new Map<string, ConversationState>();

  constructor(
    private readonly session: SubagentSession,
    private readonly memory: ViewMemory | undefined,
  ) {}

  get sessionId(): string {
    return this.session.id;
  }

  taskFor(callId: string) {
    return this.session.taskForCall(callId);
  }

  /** Stops one sub-agent (the turn goes on); the error, or null. */
  stop(agentId: string): Promise<string | null> {
    return this.session.stopTask(agentId);
  }

  /** The waiting permission requests of the sub-agent an Agent call started (the same empty list
   *  while there are none, so a transcript's cards are not redrawn for nothing). */
  requestsFor(callId: string): PermissionRequest[] {
    const asked = this.session.permissions.filter((p) => p.agent_call_id === callId);
    return asked.length ? asked : NONE;
  }

  /** A finished sub-agent's transcript once it was read. */
  transcript(agentId: string): ConversationState | undefined {
    return this.read.get(agentId);
  }

  /** Reads a finished sub-agent's transcript from the engine and rebuilds it as a resumed
   *  session's is; once (a card drawn again reuses it), unless it failed. */
  loadTranscript(agentId: string): Promise<ConversationState> {
    let pending = this.transcripts.get(agentId);
    if (!pending) {
      pending = ipc.subagentTranscript(this.session.id, agentId).then((t) => {
        const state = fromHistory(t.history, "default", t.past_calls);
        this.read.set(agentId, state);
        return state;
      });
      pending.catch(() => this.transcripts.delete(agentId));
      this.transcripts.set(agentId, pending);
    }
    return pending;
  }

  /** Opens an Agent card's sub-agent: now if the card is drawn, else when it is. */
  show(callId: string) {
    this.memory?.setOpen(subagentOpenId(callId), true);
    this.shown = { callId, nav: (this.shown?.nav ?? 0) + 1 };
  }
}

const KEY = Symbol("nerve.subagents");

export function setSubagents(subagents: Subagents) {
  setContext(KEY, subagents);
}

/** The session's sub-agents, or none (a card shown outside a session's screen). */
export function subagentsContext(): Subagents | undefined {
  return getContext<Subagents | undefined>(KEY);
}
