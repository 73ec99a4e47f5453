// Sessions made from an earlier prompt, in one place: resending an edited prompt (the code put
// back first when asked, then a fork of the conversation as it was just before the prompt takes
// the session's place and gets the new text), and forking from a prompt (a copy up to that
// prompt's exchange opens beside the session). The engine forks (`fork_session` with
// `beforeTurn`); the original keeps everything, so the earlier branch stays in the sidebar.
import type { PromptInfo } from "../bindings/PromptInfo";
import type { RewindOutcome } from "../bindings/RewindOutcome";
import type { Attachment } from "./attachments";
import { rewindSummary } from "./changes";
import { SessionStore } from "./conversation/session.svelte";
import * as ipc from "./ipc";
import type { LiveSessions } from "./sessions.svelte";
import { closeTerminals } from "./terminals.svelte";

/** What the prompt editor hands over. */
export interface EditedPrompt {
  /** The prompt edited (the engine's number). */
  turn: number;
  text: string;
  images: Attachment[];
  /** Put the files back as they were before the prompt, overwriting these files changed on disk
   *  since the agent's change; null: the files stay as they are. */
  code: { confirmed: string[] } | null;
}

/** Opens a session of the project (resuming `resume`, or a new one) the way the project picker
 *  and the sidebar do. */
export async function openSession(projectPath: string, resume: string | null): Promise<SessionStore> {
  const project = await ipc.openProject(projectPath);
  const info = await ipc.startSession(project.path, resume);
  return new SessionStore(info, project.unapproved_mcp_servers);
}

/** `store` takes the place of the live session `old` in the main area (`/clear`, a resent edit);
 *  the old one ends (its transcript stays: the sidebar lists it, to be resumed later). */
export async function takeOver(live: LiveSessions, old: SessionStore, store: SessionStore) {
  live.replace(old.id, store);
  // Its terminals end with it: they ran in its folder, and the new session may work in another.
  closeTerminals(old.id);
  try {
    await ipc.endSession(old.id);
  } catch {
    // The new session runs either way; the old one's transcript is already saved.
  }
}

/** Why a prompt cannot be edited or forked from now, or null when it can. */
function busyReason(session: SessionStore, what: string): string | null {
  if (session.running) return `A turn is running: ${what} once it has ended.`;
  if (session.compacting) return `The conversation is being compacted: ${what} once that is done.`;
  return null;
}

/**
 * Resends an edited prompt: (1) when asked, the files go back as they were before the prompt (in
 * this session, whose conversation stays as it is); (2) the engine forks the session as it was
 * just before the prompt; (3) the fork takes this session's place, which ends; (4) the edited
 * text goes out in the fork. A failure is said in the conversation and loses nothing: until the
 * fork is open this session stays live (files put back stay so, as the rewind's notice says), and
 * the editor keeps the text. Returns whether the fork took over.
 */
export async function resendEdited(live: LiveSessions, old: SessionStore, edit: EditedPrompt): Promise<boolean> {
  const busy = busyReason(old, "resend the prompt");
  if (busy) {
    old.addError(busy);
    return false;
  }
  // Named before anything changes: the row the user will look for in the sidebar.
  const title = live.titleOf(old);
  let rewound: RewindOutcome | null = null;
  if (edit.code) {
    try {
      rewound = await ipc.rewindSession(old.id, { to_turn: edit.turn, code: true, conversation: false, confirmed: edit.code.confirmed });
    } catch (e) {
      old.addError(`Could not put the files back as they were before prompt ${edit.turn}: ${ipc.errorText(e)}`);
      return false;
    }
    // Said here too: should the fork fail, this session is the one the user stays in.
    old.applyRewind(rewound);
  }
  let store: SessionStore;
  try {
    const id = await ipc.forkSession(old.projectPath, old.id, edit.turn);
    store = await openSession(old.projectPath, id);
  } catch (e) {
    old.addError(`Could not start a session from before prompt ${edit.turn}: ${ipc.errorText(e)}`);
    return false;
  }
  await takeOver(live, old, store);
  if (rewound) store.addNotice(rewindSummary(rewound.report, old.projectPath));
  store.addNotice(`Edited prompt ${edit.turn}: the earlier version stays in the session “${title}” in the sidebar.`);
  store.submit(edit.text, edit.images);
  return true;
}

/** The prompt after `turn` in the conversation (a fork before it holds `turn`'s whole exchange);
 *  null when `turn` is the last. */
export function nextTurn(prompts: PromptInfo[], turn: number): number | null {
  const at = prompts.findIndex((p) => p.turn === turn);
  return at < 0 ? null : (prompts[at + 1]?.turn ?? null);
}

/**
 * "Fork from here": a new session holding the conversation up to and including prompt `turn`'s
 * exchange (the whole conversation when it is the last prompt). Returns the fork, opened, for the
 * caller to show beside this session, which stays live; null when it failed (said in the
 * conversation).
 */
export async function forkFromPrompt(live: LiveSessions, session: SessionStore, turn: number): Promise<SessionStore | null> {
  const busy = busyReason(session, "fork");
  if (busy) {
    session.addError(busy);
    return null;
  }
  if (!session.prompts.some((p) => p.turn === turn)) {
    session.addError(`Prompt ${turn} is not in the conversation any more: nothing to fork from.`);
    return null;
  }
  const title = live.titleOf(session);
  let store: SessionStore;
  try {
    const id = await ipc.forkSession(session.projectPath, session.id, nextTurn(session.prompts, turn));
    store = await openSession(session.projectPath, id);
  } catch (e) {
    session.addError(`Could not fork the session from prompt ${turn}: ${ipc.errorText(e)}`);
    return null;
  }
  store.addNotice(`Forked from “${title}” after prompt ${turn}; that session stays as it was in the sidebar.`);
  return store;
}
