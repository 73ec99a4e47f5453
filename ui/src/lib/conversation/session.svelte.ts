// The live session: wraps the pure reducer in Svelte 5 runes state and owns the side effects
// (sending prompts, the queue of prompts typed during a turn, aborting, answering permissions).
import type { CompactOutcome } from "../../bindings/CompactOutcome";
import type { Effort } from "../../bindings/Effort";
import type { ModelChoice } from "../../bindings/ModelChoice";
import type { Event } from "../../bindings/Event";
import type { PermissionMode } from "../../bindings/PermissionMode";
import type { PermissionRequest } from "../../bindings/PermissionRequest";
import type { RewindOutcome } from "../../bindings/RewindOutcome";
import type { RewindRequest } from "../../bindings/RewindRequest";
import type { RewindUndoOutcome } from "../../bindings/RewindUndoOutcome";
import type { WorktreeInfo } from "../../bindings/WorktreeInfo";
import type { SessionInfo } from "../../bindings/SessionInfo";
import type { TurnSummary } from "../../bindings/TurnSummary";
import type { TaskView } from "../../bindings/TaskView";
import { IMAGE_ONLY_PROMPT, toAttachedImages, type Attachment } from "../attachments";
import { ATTACHMENT_ONLY_PROMPT, toPromptAttachments, type AttachmentChip } from "../promptAttachments";
import { rewindSummary, rewindUndoSummary } from "../changes";
import * as ipc from "../ipc";
import type { SlashCommand } from "../../bindings/SlashCommand";
import { MODES, modeNamed } from "../slashCommands";
import { EFFORTS, effortNamed } from "../effort";
import type { TurnMarker } from "../turnNotices";
import { PersistedOutputs } from "./persisted.svelte";
import { dropPermission, fromHistory, rebuild, reduce, reduceAll, withdrawOffer } from "./reducer";
import { keepLate, OpenTurn } from "./turns";
import type { ConversationState } from "./types";

/** What the composer hands over: the typed text (trimmed; may be empty when images or attachments
 *  go), the attached images and the other attachments (folders, pages, sessions, a terminal's
 *  selection). */
export interface PromptDraft {
  text: string;
  images: Attachment[];
  attachments: AttachmentChip[];
}

export interface QueuedPrompt extends PromptDraft {
  id: number;
}

/** A prompt the engine refused to send (a bad image, an attachment it could not read, no such
 *  session), for the composer to take back so nothing typed or attached is lost. */
export interface UnsentPrompt extends PromptDraft {
  error: string;
}

export class SessionStore {
  readonly id: string;
  readonly projectPath: string;
  /** The git worktree the session works in, when it has one of its own. */
  readonly worktree: WorktreeInfo | null;
  /** The demo: a scripted model in a sample project (the screen says so). */
  readonly demo: boolean;
  /** `.mcp.json` servers this session did not start because they are not approved. */
  readonly unapprovedMcpServers: string[];
  /** When the UI started (or resumed) it: a live session the engine has not listed yet sorts by it. */
  readonly startedMs = Date.now();
  /** Turns ended so far (counted here, not by the engine): the sidebar re-lists the project after
   *  each, since its title and cost may have changed. */
  turnsEnded = $state(0);
  /** The main model (`/model` and the header's picker change it for this session). */
  model: string = $state("");
  /** How hard the model thinks (`/effort` and the picker change it for this session). */
  effort: Effort = $state("off");
  /** A model or effort chosen while a turn ran: the engine applies it when the next prompt starts,
   *  so the header says it is not in use yet. */
  choicePending = $state(false);
  /** The engine's answers to model and effort choices so far (a refused prompt checks for one). */
  private choices = 0;
  /**
   * The conversation as the reducer made it. Held raw, not as a deep proxy: the reducer replaces
   * what changes and never mutates, so proxying every item and call of a long session only costs.
   * Views read the parts below, each of which changes only when its own part was replaced.
   */
  state: ConversationState = $state.raw() as ConversationState;
  readonly items = $derived(this.state.items);
  readonly tools = $derived(this.state.tools);
  readonly permissions = $derived(this.state.permissions);
  readonly mode = $derived(this.state.mode);
  readonly todos = $derived(this.state.todos);
  readonly usage = $derived(this.state.usage);
  readonly context = $derived(this.state.context);
  readonly cost = $derived(this.state.cost);
  readonly cache = $derived(this.state.cache);
  readonly turn = $derived(this.state.turn);
  /** The session's prompts with how each turn ended (the prompt navigator lists them). */
  readonly prompts = $derived(this.state.prompts);
  readonly changesSeq = $derived(this.state.changes_seq);
  private readonly stateRunning = $derived(this.state.running);
  /** Prompts typed while a turn runs; sent one by one when it ends. */
  queue: QueuedPrompt[] = $state.raw([]);
  private nextQueueId = 1;
  /** Refused prompts the composer has not taken back yet (see `takeUnsent`). */
  unsent: UnsentPrompt[] = $state.raw([]);
  /** Prompts of this session, oldest first, for recalling with Up/Down in the prompt box. */
  history: string[] = $state.raw([]);
  /** The slash commands the prompt box offers (built-ins first); asked for by `loadCommands`. */
  commands: SlashCommand[] = $state.raw([]);
  /** A compaction (`/compact` or the Compact button) is under way. */
  compacting = $state(false);
  /** Saved outputs as far as the user loaded them (find in conversation searches them). */
  readonly outputs = new PersistedOutputs();
  /** A turn ended while the user was not looking: the sidebar says "done" or "failed" until the
   *  session is opened (the registry of live sessions sets and clears it). */
  marker: TurnMarker | null = $state(null);
  /** Told of each turn whose command resolved, with its outcome (set by the registry of live
   *  sessions: the notices and the screen reader are about every session, not the shown one). */
  onTurnEnded: ((summary: TurnSummary) => void) | null = null;
  /** Told of each permission request as it comes in (set by the registry, for the screen reader). */
  onPermissionRequested: ((request: PermissionRequest) => void) | null = null;

  constructor(info: SessionInfo, unapprovedMcpServers: string[] = []) {
    this.id = info.session_id;
    this.projectPath = info.project_path;
    this.worktree = info.worktree;
    this.demo = info.demo ?? false;
    this.unapprovedMcpServers = unapprovedMcpServers;
    this.model = info.model;
    this.effort = info.effort;
    let state = fromHistory(info.history, info.mode, info.past_calls, info.prompts);
    // A resumed session's meter and cost start where they were (the engine keeps usage).
    state = {
      ...state,
      context: { tokens: info.context_tokens, window: info.context_window, compacted: false },
      cost: { session_usd: info.session_cost_usd, answered: info.session_cost_usd !== null || info.context_tokens > 0, turn_start_usd: null },
      cache: { read_tokens: info.session_cache_read_tokens, saved_usd: info.session_cache_saved_usd },
    };
    // Problems met while starting are shown, not swallowed: the user should know what is missing.
    for (const message of info.warnings) state = reduce(state, { type: "notice", message }, 0);
    if (unapprovedMcpServers.length) {
      const message = `MCP servers from .mcp.json are not started until you approve them in Settings: ${unapprovedMcpServers.join(", ")}`;
      state = reduce(state, { type: "notice", message }, 0);
      // The notice offers the way there (a button to Settings' MCP servers).
      state = {
        ...state,
        items: state.items.map((item, i) =>
          i === state.items.length - 1 && item.kind === "notice" ? { ...item, action: "review-mcp" } : item,
        ),
      };
    }
    this.state = state;
    // A resumed session recalls its earlier prompts too.
    this.history = state.items.flatMap((i) => (i.kind === "user" && i.text ? [i.text] : []));
  }

  /** The session's background shells and sub-agents as the engine reports them (`task_changed`
   *  events during and between turns; the whole list when the session opens). */
  tasks: TaskView[] = $state.raw([]);

  /** The task a tool call started (a background Bash call, an Agent call), if any. */
  taskForCall(toolUseId: string): TaskView | undefined {
    return this.tasks.find((t) => t.tool_use_id === toolUseId);
  }

  /** How many of the session's tasks are running. */
  get runningTasks(): number {
    return this.tasks.filter((t) => t.status === "running").length;
  }

  /** A task started or ended: the engine's view replaces ours. */
  applyTask(task: TaskView) {
    const i = this.tasks.findIndex((t) => t.id === task.id);
    this.tasks = i < 0 ? [...this.tasks, task] : this.tasks.map((t, j) => (j === i ? task : t));
  }

  /** Reads the session's tasks from the engine, and follows its events between turns (a
   *  background command that ends after its turn did). A failure leaves the list as it was: the
   *  next event brings it up to date. */
  async watchTasks() {
    try {
      await ipc.watchSession(this.id, (event) => {
        if (event.type === "task_changed") this.applyTask(event.task);
      });
      const tasks = await ipc.listTasks(this.id);
      // Events that arrived meanwhile are newer than the list.
      const newer = new Map(this.tasks.map((t) => [t.id, t]));
      this.tasks = tasks.map((t) => newer.get(t.id) ?? t).concat(this.tasks.filter((t) => !tasks.some((l) => l.id === t.id)));
    } catch {
      // No engine behind the window (a test without these commands): nothing to follow.
    }
  }

  /** Stops a running task (a background shell, or one sub-agent while the turn goes on). */
  async stopTask(taskId: string): Promise<string | null> {
    try {
      this.applyTask(await ipc.stopTask(this.id, taskId));
      return null;
    } catch (e) {
      return ipc.errorText(e);
    }
  }

  /** A turn runs: the view says so, or its command has not resolved yet (the engine holds the
   *  session until it does, and would refuse another prompt). */
  get running() {
    return this.stateRunning || this.open !== null;
  }

  /** How many permission requests wait for the user. */
  get waitingApprovals() {
    return this.permissions.length;
  }

  /** Applies one engine event at once (also used by tests to replay a stream). */
  apply = (event: Event) => {
    if (event.type === "task_changed") this.applyTask(event.task);
    const before = this.state.permissions;
    this.state = reduce(this.state, event, Date.now());
    this.tellRequests(before);
  };

  // Events from the channel are applied once per frame: a fast stream of text deltas would
  // otherwise re-render (and re-parse the Markdown of) the message for every few characters.
  // Each is tagged with its turn's token (see turns.ts).
  private pending: { event: Event; turn: number }[] = [];
  private flushScheduled = false;
  /** The turn whose command has not resolved yet (or whose end is awaited); null between turns. */
  private open: OpenTurn | null = $state(null);
  /** The token of the latest turn begun. */
  private lastToken = 0;

  private receive(event: Event, turn: number) {
    // Tasks outlive turns: their changes apply whichever turn sent them.
    if (event.type === "task_changed") this.applyTask(event.task);
    if (event.type === "turn_ended" && this.open?.token === turn) this.open.markEnded();
    this.pending.push({ event, turn });
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    const raf = globalThis.requestAnimationFrame;
    if (typeof raf === "function") raf(() => this.flush());
    else setTimeout(() => this.flush(), 16);
  }

  private flush() {
    this.flushScheduled = false;
    if (this.pending.length === 0) return;
    const pending = this.pending;
    this.pending = [];
    // Only the open turn's events may change the status; a finished turn's late ones are sorted
    // by keepLate.
    const events = pending.filter(({ event, turn }) => turn === this.open?.token || keepLate(event, turn < this.lastToken));
    if (events.length === 0) return;
    const before = this.state.permissions;
    this.state = reduceAll(this.state, events.map((e) => e.event), Date.now());
    this.tellRequests(before);
  }

  /** Tells of the permission requests that came in since `before` (the reducer keeps one per id). */
  private tellRequests(before: PermissionRequest[]) {
    const after = this.state.permissions;
    if (after === before || !this.onPermissionRequested) return;
    const known = new Set(before.map((p) => p.id));
    for (const request of after) if (!known.has(request.id)) this.onPermissionRequested(request);
  }

  /** Sends now when idle, otherwise queues (visibly) for after the current turn or compaction.
   *  Images and attachments may go without text. */
  submit(text: string, images: Attachment[] = [], attachments: AttachmentChip[] = []) {
    const draft: PromptDraft = { text: text.trim(), images, attachments };
    if (!draft.text && images.length === 0 && attachments.length === 0) return;
    if (draft.text) this.remember(draft.text);
    if (this.running || this.compacting) {
      this.queue = [...this.queue, { id: this.nextQueueId++, ...draft }];
      return;
    }
    void this.runTurn(draft);
  }

  /** The refused prompts, once: the composer puts them back. */
  takeUnsent(): UnsentPrompt[] {
    const taken = this.unsent;
    if (taken.length) this.unsent = [];
    return taken;
  }

  /** Keeps a prompt (or a built-in command the UI ran) for recalling with Up. */
  remember(prompt: string) {
    if (this.history.at(-1) !== prompt) this.history = [...this.history, prompt];
  }

  /**
   * Sends a queued prompt now: it moves to the front of the queue and the running turn is
   * interrupted (the engine stops the calls that may be cancelled and lets the others finish);
   * the turn's end then sends it.
   */
  async sendNow(id: number) {
    const chosen = this.queue.find((q) => q.id === id);
    if (!chosen) return;
    this.queue = [chosen, ...this.queue.filter((q) => q.id !== id)];
    // A compaction cannot be interrupted: its end sends the queue.
    if (this.compacting && !this.running) return;
    if (!this.running) {
      this.sendNextQueued();
      return;
    }
    try {
      await ipc.interruptTurn(this.id);
    } catch (e) {
      this.addError(ipc.errorText(e));
    }
  }

  removeQueued(id: number) {
    this.queue = this.queue.filter((q) => q.id !== id);
  }

  /** "Continue" on the notice of a turn stopped at the model-call limit: the offer is taken (it
   *  cannot be sent twice) and "continue" goes out as a prompt, queued if something runs. */
  continueTurn = (noticeKey: string) => {
    this.state = withdrawOffer(this.state, noticeKey);
    this.submit("continue");
  };

  private async runTurn(draft: PromptDraft) {
    const turn = new OpenTurn(++this.lastToken);
    this.open = turn;
    this.state = { ...this.state, running: true, last_end: null };
    // The engine applies a waiting model or effort as this prompt starts.
    const pendingBefore = this.choicePending;
    const choicesBefore = this.choices;
    this.choicePending = false;
    let summary: TurnSummary;
    try {
      const prompt = draft.text || (draft.images.length ? IMAGE_ONLY_PROMPT : ATTACHMENT_ONLY_PROMPT);
      summary = await ipc.sendPrompt(
        this.id,
        prompt,
        (e) => this.receive(e, turn.token),
        toAttachedImages(draft.images),
        toPromptAttachments(draft.attachments),
      );
    } catch (e) {
      // A refused prompt started nothing: the choice still waits for the next one (unless the
      // engine answered a choice made meanwhile: its answer stands).
      if (pendingBefore && this.choices === choicesBefore) this.choicePending = true;
      this.refused(turn, draft, ipc.errorText(e));
      return;
    }
    // The turn's last events may still be on their way: the next turn must not start before them.
    await turn.waitForEnd();
    this.flush(); // the turn's events come before its outcome
    this.endTurn(turn, summary);
  }

  /** The turn's command resolved: the authoritative end, with or without its `turn_ended`. */
  private endTurn(turn: OpenTurn, summary: TurnSummary) {
    this.open = null;
    this.turnsEnded++;
    // The engine usually sent the same message as an `error` event already: show it once.
    const error = summary.error;
    if (error && !this.state.items.some((i) => i.kind === "notice" && i.level === "error" && i.text === error)) {
      this.addError(error);
    }
    // Its turn_ended got lost: the summary says the same (and the files may have changed).
    if (!turn.ended) this.state = reduce(this.state, { type: "turn_ended", reason: summary.end }, Date.now());
    const cost = summary.session_cost_usd;
    this.state = {
      ...this.state,
      running: false,
      cost: cost === null ? this.state.cost : { ...this.state.cost, session_usd: cost, answered: true },
    };
    this.onTurnEnded?.(summary);
    // A turn may have written custom commands (.claude/commands/): ask again, it is cheap.
    if (this.queue.length === 0) void this.loadCommands();
    this.sendNextQueued();
  }

  /**
   * A rejected command started nothing (the engine refuses before the turn starts): the prompt
   * goes back to the composer with the reason. The queue is not drained: the reason (a turn still
   * running, a bad image) may well refuse the next prompt too, so the user sends it when ready.
   */
  private refused(turn: OpenTurn, draft: PromptDraft, error: string) {
    this.flush();
    // Only this turn's own status is undone; a turn opened since is left alone.
    if (this.open === turn) {
      this.open = null;
      this.state = { ...this.state, running: false };
    }
    this.addError(error);
    this.unsent = [...this.unsent, { ...draft, error }];
    if (this.queue.length) this.addNotice("The queued prompts wait: send them with Send now.");
  }

  private sendNextQueued() {
    if (this.compacting) return; // the compaction's end sends it
    const [next, ...rest] = this.queue;
    if (!next) return;
    this.queue = rest;
    void this.runTurn({ text: next.text, images: next.images, attachments: next.attachments });
  }

  /** Shows an error in the conversation. */
  addError = (message: string) => {
    this.state = reduce(this.state, { type: "error", message }, Date.now());
  };

  /** Shows a notice in the conversation. */
  addNotice = (message: string) => {
    this.state = reduce(this.state, { type: "notice", message }, Date.now());
  };

  /** Saves the session as Markdown where the user picks; says where, or why it failed. */
  async exportMarkdown() {
    try {
      const path = await ipc.exportSession(this.id);
      if (path) this.addNotice(`Session exported to ${path}`);
    } catch (e) {
      this.addError(ipc.errorText(e));
    }
  }

  /** Asks the engine for the session's slash commands; on failure the menu offers none. */
  async loadCommands() {
    try {
      this.commands = (await ipc.listCommands(this.id)) ?? [];
    } catch {
      // Typing a command still works without the menu: the engine expands it when it is sent.
      this.commands = [];
    }
  }

  /**
   * `/compact [instructions]` and the Compact button: summarises the conversation now (the engine
   * refuses during a turn) and rebuilds the view from what the engine then holds. Prompts typed
   * meanwhile wait in the queue.
   */
  async compact(instructions: string | null) {
    if (this.compacting) {
      this.addNotice("A compaction is already under way.");
      return;
    }
    this.compacting = true;
    try {
      this.applyCompaction(await ipc.compactSession(this.id, instructions));
    } catch (e) {
      this.addError(`Could not compact the conversation: ${ipc.errorText(e)}`);
    } finally {
      this.compacting = false;
      if (!this.running) this.sendNextQueued();
    }
  }

  /** The conversation after a compaction, rebuilt like a resumed session's. The meter keeps the
   *  last response's figure, marked as such, until the next response reports the new one. */
  applyCompaction(outcome: CompactOutcome) {
    const state = rebuild(this.state, outcome.history, outcome.past_calls, outcome.prompts);
    this.state = reduce(
      { ...state, context: { ...state.context, compacted: true } },
      { type: "notice", message: "Conversation compacted: the model now sees a summary of it." },
      Date.now(),
    );
  }

  /** `/model [NAME]`: the main model for the rest of this session; without a name, says which. */
  async switchModel(name: string | null) {
    if (!name) {
      this.addNotice(`Model: ${this.model}. Change it for this session with /model NAME.`);
      return;
    }
    await this.chooseModel(name);
  }

  /** `/effort [LEVEL]`: the thinking effort for the rest of this session; without one, says which. */
  async switchEffort(name: string | null) {
    const list = EFFORTS.join(", ");
    if (!name) {
      this.addNotice(`Thinking effort: ${this.effort}. Change it for this session with /effort LEVEL (one of ${list}).`);
      return;
    }
    const effort = effortNamed(name);
    if (!effort) {
      this.addError(`Unknown thinking effort "${name}". The levels are: ${list}.`);
      return;
    }
    await this.chooseEffort(effort);
  }

  /** The session's main model from now on (the engine may keep it for the next prompt). */
  async chooseModel(model: string) {
    try {
      this.applyChoice(await ipc.setModel(this.id, model));
      this.addNotice(`Model: ${this.model} for this session${this.pendingNote()}`);
    } catch (e) {
      this.addError(`Could not switch the model to ${model}: ${ipc.errorText(e)}`);
    }
  }

  /** The session's thinking effort from now on (the engine may keep it for the next prompt). */
  async chooseEffort(effort: Effort) {
    try {
      this.applyChoice(await ipc.setEffort(this.id, effort));
      this.addNotice(`Thinking effort: ${this.effort} for this session${this.pendingNote()}`);
    } catch (e) {
      this.addError(`Could not switch the thinking effort to ${effort}: ${ipc.errorText(e)}`);
    }
  }

  /** The engine's answer is the truth: both fields, whichever was asked for. */
  private applyChoice(choice: ModelChoice) {
    this.choices++;
    this.model = choice.model;
    this.effort = choice.effort;
    this.choicePending = choice.at_next_prompt;
  }

  private pendingNote(): string {
    return this.choicePending ? " from the next prompt" : "";
  }

  /** `/mode [MODE]`: the permission mode by its engine name; without one, says which it is. */
  async switchMode(name: string | null) {
    const list = MODES.join(", ");
    if (!name) {
      this.addNotice(`Mode: ${this.state.mode}. Change it with /mode MODE (one of ${list}).`);
      return;
    }
    const mode = modeNamed(name);
    if (!mode) {
      this.addError(`Unknown mode "${name}". The modes are: ${list}.`);
      return;
    }
    if (await this.setMode(mode)) this.addNotice(`Mode: ${this.state.mode}`);
  }

  async abort() {
    try {
      await ipc.abortTurn(this.id);
    } catch (e) {
      this.addError(ipc.errorText(e));
    }
  }

  /** Called by the permission dialog once its answer was delivered. */
  permissionAnswered = (requestId: string) => {
    this.state = dropPermission(this.state, requestId);
  };

  /**
   * Rewinds code, conversation or both (the engine refuses while a turn runs; the rejection is
   * for the caller to show). Returns the rewound prompt's text when the conversation went back,
   * for the prompt box.
   */
  async rewind(request: RewindRequest): Promise<string | null> {
    const outcome = await ipc.rewindSession(this.id, request);
    this.applyRewind(outcome);
    return outcome.report.conversation?.prompt.text ?? null;
  }

  /**
   * After a conversation rewind the conversation is rebuilt from what the engine now holds, the
   * same way a resumed session is; what is not part of the conversation (usage, mode, the task
   * list) stays. Either way the files may differ now, and a notice says what was done.
   */
  applyRewind(outcome: RewindOutcome) {
    const before = this.state;
    let state = before;
    if (outcome.report.conversation) state = rebuild(before, outcome.history, outcome.past_calls, outcome.prompts);
    state = { ...state, changes_seq: before.changes_seq + 1 };
    this.state = reduce(state, { type: "notice", message: rewindSummary(outcome.report, this.projectPath) }, Date.now());
  }

  /**
   * After the last rewind was undone: when its prompts came back (nothing was said after it), the
   * conversation is rebuilt from what the engine now holds, as after a rewind. The files may
   * differ either way, and a notice says what came back.
   */
  applyRewindUndo(outcome: RewindUndoOutcome) {
    const before = this.state;
    let state = before;
    if (outcome.report.prompts_back !== null) state = rebuild(before, outcome.history, outcome.past_calls, outcome.prompts);
    state = { ...state, changes_seq: before.changes_seq + 1 };
    this.state = reduce(state, { type: "notice", message: rewindUndoSummary(outcome.report) }, Date.now());
  }

  /** Files changed outside a turn (a file was reverted): views of the changes ask again. */
  filesChanged = () => {
    this.state = { ...this.state, changes_seq: this.state.changes_seq + 1 };
  };

  /** Returns whether the engine took the change (its refusal is shown). */
  async setMode(mode: PermissionMode): Promise<boolean> {
    try {
      const actual = await ipc.setPermissionMode(this.id, mode);
      this.state = { ...this.state, mode: actual };
      return true;
    } catch (e) {
      this.addError(ipc.errorText(e));
      return false;
    }
  }
}
