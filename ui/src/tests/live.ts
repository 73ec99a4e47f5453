// A live session against a mocked shell: prompts are held open until a test finishes them, and
// every command is recorded, so component tests can stream events and read what was sent.
import { mockIPC, mockWindows } from "@tauri-apps/api/mocks";
import type { Channel } from "@tauri-apps/api/core";
import type { AppState } from "../bindings/AppState";
import type { AttachedImage } from "../bindings/AttachedImage";
import type { Event } from "../bindings/Event";
import type { PromptAttachment } from "../bindings/PromptAttachment";
import type { ProjectInfo } from "../bindings/ProjectInfo";
import type { SessionInfo } from "../bindings/SessionInfo";
import type { TurnEnd } from "../bindings/TurnEnd";
import type { TurnSummary } from "../bindings/TurnSummary";
import { SessionStore } from "../lib/conversation/session.svelte";

export interface Turn {
  prompt: string;
  images: AttachedImage[];
  /** The attachments `send_prompt` carried (folders, pages, sessions, a terminal's selection). */
  attachments: PromptAttachment[];
  /** How many other send_prompt calls were still open when this one was made. */
  othersOpen: number;
  send: (event: Event) => void;
  /** Ends the turn as the engine does: its `turn_ended` (unless the test sent one), then the
   *  command's answer (with the turn's error, when it failed). */
  finish: (end?: TurnEnd, error?: string | null) => void;
  /** Only the command's answer: the turn's `turn_ended` is left for the test to send late (or never). */
  resolve: (end?: TurnEnd, error?: string | null) => void;
  /** The command fails: the engine refused the prompt (a turn still running, a bad image). */
  reject: (error: string) => void;
  /** The command has answered or failed. */
  settled: boolean;
}

export interface Live {
  session: SessionStore;
  /** The send_prompt calls, in order (finished ones stay). */
  turns: Turn[];
  /** Every command with its arguments. */
  calls: { cmd: string; args: Record<string, unknown> }[];
  /** The calls of one command. */
  called: (cmd: string) => Record<string, unknown>[];
}

export function sessionInfo(fields: Partial<SessionInfo> = {}): SessionInfo {
  return {
    session_id: "s1",
    project_path: "/home/me/projects/nerve-demo",
    worktree: null,
    mode: "default",
    model: "m",
    effort: "off",
    tools: [],
    history: [],
    past_calls: [],
    prompts: [],
    context_tokens: 0,
    context_window: 200_000,
    session_cost_usd: null,
    session_cache_read_tokens: 0,
    session_cache_saved_usd: null,
    warnings: [],
    demo: false,
    ...fields,
  };
}

export const appState = (): AppState => ({
  has_api_key: true,
  key_source: "keyring",
  keyring_problem: null,
  has_auth_token: false,
  credentials_in_use: "the OS keyring",
  settings: { base_url: null, provider: null, model: null, fast_model: null, effort: null, default_mode: null, max_concurrency: null, max_model_calls: null, custom_headers: null, new_session_worktree: "parallel", turn_end_notices: "all", shortcuts: {}, sidebar_collapsed: null, update_feed_url: null },
  default_model: "claude-main",
  default_fast_model: "claude-fast",
  recent_projects: [],
});

export const projectInfo = (path: string): ProjectInfo => ({ path, mode: "default", sessions: [], unapproved_mcp_servers: [] });

/** Answers one command from its arguments (a thrown error or a rejected promise is its failure). */
export type Handler = (args: Record<string, unknown>) => unknown;

/** Also answers the app-level commands, so the whole App can be rendered and a session started.
 *  `handlers` answer other commands (get_changes, rewind_session…) or replace those answers (a
 *  `send_prompt` handler replaces the held-open turn); the rest return null. */
export function liveSession(info: SessionInfo = sessionInfo(), handlers: Record<string, Handler> = {}): Live {
  const turns: Turn[] = [];
  const calls: Live["calls"] = [];
  mockWindows("main");
  mockIPC((cmd, raw) => {
    const args = (raw ?? {}) as Record<string, unknown>;
    calls.push({ cmd, args });
    const handler = handlers[cmd];
    if (handler) return handler(args);
    if (cmd === "send_prompt") {
      const channel = args.onEvent as Channel<Event>;
      return new Promise<TurnSummary>((resolve, reject) => {
        let ended = false;
        const turn: Turn = {
          prompt: String(args.prompt),
          images: (args.images ?? []) as AttachedImage[],
          attachments: (args.attachments ?? []) as PromptAttachment[],
          othersOpen: turns.filter((t) => !t.settled).length,
          settled: false,
          send: (event) => {
            if (event.type === "turn_ended") ended = true;
            channel.onmessage(event);
          },
          finish: (end = "end_turn", error = null) => {
            if (!ended) turn.send({ type: "turn_ended", reason: end });
            turn.resolve(end, error);
          },
          resolve: (end = "end_turn", error = null) => {
            turn.settled = true;
            resolve({ end, error, session_cost_usd: null });
          },
          reject: (error) => {
            turn.settled = true;
            reject(error);
          },
        };
        turns.push(turn);
      });
    }
    if (cmd === "get_app_state") return appState();
    if (cmd === "open_project") return projectInfo(String(args.path));
    if (cmd === "start_session") return info;
    // The shell's answer to a turn's end: the user was looking when the session showed (the
    // window focused), unless a test's handler says otherwise.
    if (cmd === "turn_ended") return args.shown;
    // The engine's preview of an edited permission input: none, unless a test's handler gives one.
    if (cmd === "preview_permission_edit") return null;
    return null;
  });
  return {
    session: new SessionStore(info),
    turns,
    calls,
    called: (cmd) => calls.filter((c) => c.cmd === cmd).map((c) => c.args),
  };
}

/** Waits out the permission panel's shortcut arming delay (400 ms in the app). */
export const pastArmDelay = () => new Promise((r) => setTimeout(r, 450));
