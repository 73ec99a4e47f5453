// Typed wrappers around the Tauri commands of the IPC contract. Components call these instead of
// `invoke` directly so command names and argument keys (camelCase) live in one place.
import { invoke, Channel } from "@tauri-apps/api/core";
import type { AttentionEvent } from "../bindings/AttentionEvent";
import type { Diagnostics } from "../bindings/Diagnostics";
import type { UpdateStatus } from "../bindings/UpdateStatus";
import type { AppState } from "../bindings/AppState";
import type { AppSettings } from "../bindings/AppSettings";
import type { ModelProvider } from "../bindings/ModelProvider";
import type { MemoryFileView } from "../bindings/MemoryFileView";
import type { ProjectInfo } from "../bindings/ProjectInfo";
import type { PromptAttachment } from "../bindings/PromptAttachment";
import type { SessionInfo } from "../bindings/SessionInfo";
import type { TurnSummary } from "../bindings/TurnSummary";
import type { Event } from "../bindings/Event";
import type { UserAnswer } from "../bindings/UserAnswer";
import type { PermissionMode } from "../bindings/PermissionMode";
import type { PermissionPreview } from "../bindings/PermissionPreview";
import type { JsonValue } from "../bindings/serde_json/JsonValue";
import type { PersistedChunk } from "../bindings/PersistedChunk";
import type { ChangeScope } from "../bindings/ChangeScope";
import type { ChangeSet } from "../bindings/ChangeSet";
import type { CodeRewindPlan } from "../bindings/CodeRewindPlan";
import type { CodeRewindReport } from "../bindings/CodeRewindReport";
import type { RewindUndoOutcome } from "../bindings/RewindUndoOutcome";
import type { TurnEnd } from "../bindings/TurnEnd";
import type { CleanReport } from "../bindings/CleanReport";
import type { RewindRequest } from "../bindings/RewindRequest";
import type { RewindOutcome } from "../bindings/RewindOutcome";
import type { CompactOutcome } from "../bindings/CompactOutcome";
import type { FileMatch } from "../bindings/FileMatch";
import type { SlashCommand } from "../bindings/SlashCommand";
import type { SandboxRefusal } from "../bindings/SandboxRefusal";
import type { AttachedImage } from "../bindings/AttachedImage";
import type { ProjectSettingsView } from "../bindings/ProjectSettingsView";
import type { RuleSyntax } from "../bindings/RuleSyntax";
import type { RuleSource } from "../bindings/RuleSource";
import type { RuleBehavior } from "../bindings/RuleBehavior";
import type { RuleEdit } from "../bindings/RuleEdit";
import type { RulesView } from "../bindings/RulesView";
import type { PermissionCheck } from "../bindings/PermissionCheck";
import type { HookSpec } from "../bindings/HookSpec";
import type { HookTestResult } from "../bindings/HookTestResult";
import type { McpServerView } from "../bindings/McpServerView";
import type { McpServerSpec } from "../bindings/McpServerSpec";
import type { McpImportSource } from "../bindings/McpImportSource";
import type { McpImportReport } from "../bindings/McpImportReport";
import type { ModelListing } from "../bindings/ModelListing";
import type { ModelChoice } from "../bindings/ModelChoice";
import type { Effort } from "../bindings/Effort";
import type { OutputsView } from "../bindings/OutputsView";
import type { SearchHit } from "../bindings/SearchHit";
import type { SearchDone } from "../bindings/SearchDone";
import type { TaskView } from "../bindings/TaskView";
import type { SubagentTranscript } from "../bindings/SubagentTranscript";
import type { OutputLine } from "../bindings/OutputLine";
import type { Deleted } from "../bindings/Deleted";
import type { TranscriptSummary } from "../bindings/TranscriptSummary";
import type { SessionSearchHit } from "../bindings/SessionSearchHit";
import type { WorktreeStatus } from "../bindings/WorktreeStatus";
import type { DiffHunk } from "../bindings/DiffHunk";
import type { ReviewComment } from "../bindings/ReviewComment";
import type { WorktreeInfo } from "../bindings/WorktreeInfo";
import type { LandOutcome } from "../bindings/LandOutcome";
import type { LandStrategy } from "../bindings/LandStrategy";
import type { DiscardPreview } from "../bindings/DiscardPreview";
import type { DeletedSession } from "../bindings/DeletedSession";
import type { DemoStarted } from "../bindings/DemoStarted";
import type { TerminalEvent } from "../bindings/TerminalEvent";
import type { TerminalInfo } from "../bindings/TerminalInfo";

export const getAppState = () => invoke<AppState>("get_app_state");

/** Allows for the project what the sandbox refused a command of the session; the settings file
 *  it was written to. */
export const allowSandboxRefusal = (sessionId: string, refusal: SandboxRefusal) =>
  invoke<string>("allow_sandbox_refusal", { sessionId, refusal });

/** Uses a model server on this machine without a key; the shell refuses another address. */
export const useLocalServer = (baseUrl: string) => invoke<AppSettings>("use_local_server", { baseUrl });
export const saveSettings = (settings: AppSettings) =>
  invoke<AppSettings>("save_settings", { settings });

/** The key goes one way only: nothing ever reads it back into the UI. Each API's key has its own
 *  keyring entry: `provider` names whose (null or not given: Anthropic's). A note when it went to a
 *  file instead of the keyring. */
export const setApiKey = (key: string, provider?: ModelProvider | null) =>
  invoke<string | null>("set_api_key", { key, provider });

/** Removes the stored key of `provider` (null or not given: Anthropic's). */
export const deleteApiKey = (provider?: ModelProvider | null) => invoke<void>("delete_api_key", { provider });

export const openProject = (path: string) => invoke<ProjectInfo>("open_project", { path });

/** Starts a session, or resumes one. `worktree`: work in a git worktree of its own (true), in
 *  the project folder (false), or as the settings say (null). */
export const startSession = (projectPath: string, resume: string | null, worktree: boolean | null = null) =>
  invoke<SessionInfo>("start_session", worktree === null ? { projectPath, resume } : { projectPath, resume, worktree });

/** A project's sessions, newest first; with a query (searched in the engine), only those whose
 *  title or a prompt contains it (`matched_prompt` says which prompt, when the title did not). */
export const listSessions = (projectPath: string, query: string | null) =>
  invoke<TranscriptSummary[]>("list_sessions", { projectPath, query });

/** Searches everything said in a project's sessions (titles, prompts, replies, tool inputs and
 *  results) in the engine's full-text index: the best hits first, at most 100. The query is words;
 *  the last one matches as a prefix (the user is typing it). */
export const searchSessions = (projectPath: string, query: string) =>
  invoke<SessionSearchHit[]>("search_sessions", { projectPath, query });

/** Names a session (open or not); the name as kept. A blank name is refused. */
export const renameSession = (projectPath: string, sessionId: string, title: string) =>
  invoke<string>("rename_session", { projectPath, sessionId, title });

/** Copies a session into a new one (with `beforeTurn`, its conversation as it was just before that
 *  prompt); its id, to resume with `startSession`. */
export const forkSession = (projectPath: string, sessionId: string, beforeTurn: number | null = null) =>
  invoke<string>("fork_session", { projectPath, sessionId, beforeTurn });

/** Deletes a session for good (ended first if open): transcript, checkpoints, saved outputs. */
export const deleteSession = (projectPath: string, sessionId: string) =>
  invoke<DeletedSession>("delete_session", { projectPath, sessionId });

/** The demo: a sample project in a temporary folder and a scripted model; a live session on them
 *  and the prompt that starts the tour. A demo already running ends first. */
export const startDemo = () => invoke<DemoStarted>("start_demo");

/** Resolves when the turn ends; events arrive on `onEvent` meanwhile, in order. Attached images
 *  are checked by the engine (type, size) before anything is sent; a bad one rejects the call.
 *  Attachments (a folder, a page, another session, a terminal's selection) are read by the engine
 *  as the prompt is sent; one it cannot read rejects the call, and nothing is sent. */
export function sendPrompt(
  sessionId: string,
  prompt: string,
  onEvent: (e: Event) => void,
  images: AttachedImage[] = [],
  attachments: PromptAttachment[] = [],
) {
  const channel = new Channel<Event>();
  channel.onmessage = onEvent;
  return invoke<TurnSummary>("send_prompt", { sessionId, prompt, images, attachments, onEvent: channel });
}

export const abortTurn = (sessionId: string) => invoke<void>("abort_turn", { sessionId });
export const interruptTurn = (sessionId: string) => invoke<void>("interrupt_turn", { sessionId });

export const answerPermission = (sessionId: string, requestId: string, answer: UserAnswer) =>
  invoke<void>("answer_permission", { sessionId, requestId, answer });

/** A waiting request's preview for `input`, an edit of its input the user has not sent yet, as the
 *  tool computes it for the call (null: the tool has no preview for that input). */
export const previewPermissionEdit = (sessionId: string, requestId: string, input: JsonValue) =>
  invoke<PermissionPreview | null>("preview_permission_edit", { sessionId, requestId, input });

/** Which waiting requests of the session (`PermissionRequest.id`) `rules` would allow, decided as
 *  the engine decides calls; an invalid rule rejects with the engine's error text. Nothing is
 *  saved: the batch dialog asks before offering "Allow this rule". */
export const requestsCoveredBy = (sessionId: string, rules: string[]) =>
  invoke<string[]>("requests_covered_by", { sessionId, rules });

export const setPermissionMode = (sessionId: string, mode: PermissionMode) =>
  invoke<PermissionMode>("set_permission_mode", { sessionId, mode });

export const endSession = (sessionId: string) => invoke<void>("end_session", { sessionId });

export const readPersistedOutput = (sessionId: string, path: string, offset: number, len: number) =>
  invoke<PersistedChunk>("read_persisted_output", { sessionId, path, offset, len });

/** The files a call, a turn or the whole session changed, with their diffs. */
export const getChanges = (sessionId: string, scope: ChangeScope) =>
  invoke<ChangeSet>("get_changes", { sessionId, scope });

/** What a code rewind to just before prompt `toTurn` would restore, and what it cannot. */
export const planRewind = (sessionId: string, toTurn: number) =>
  invoke<CodeRewindPlan>("plan_rewind", { sessionId, toTurn });

/** Rewinds code, conversation or both; refused while a turn runs. */
export const rewindSession = (sessionId: string, request: RewindRequest) =>
  invoke<RewindOutcome>("rewind_session", { sessionId, request });

/** What putting one file back would do: to before the session (`fromTurn` null) or that turn. */
export const planFileRevert = (sessionId: string, path: string, fromTurn: number | null) =>
  invoke<CodeRewindPlan>("plan_file_revert", { sessionId, path, fromTurn });

/** Puts one file back; one changed on disk since the agent's change needs `confirmed`. */
export const revertFile = (sessionId: string, path: string, fromTurn: number | null, confirmed: boolean) =>
  invoke<CodeRewindReport>("revert_file", { sessionId, path, fromTurn, confirmed });

/** The session's slash commands: built-ins first, then the user's and the project's own. */
export const listCommands = (sessionId: string) => invoke<SlashCommand[]>("list_commands", { sessionId });

/** The project's files (ignore files honoured) fuzzily matching `query`, best first. */
export const findFiles = (sessionId: string, query: string, limit: number) =>
  invoke<FileMatch[]>("find_files", { sessionId, query, limit });

/** Compacts the conversation now (`instructions` say what the summary should keep); refused while
 *  a turn runs. Returns the conversation as it then stands. */
export const compactSession = (sessionId: string, instructions: string | null) =>
  invoke<CompactOutcome>("compact_session", { sessionId, instructions });

/** The session's main model from now on: at once between turns, from the next prompt while one
 *  runs (`at_next_prompt`); the model and effort as the engine then holds them. */
export const setModel = (sessionId: string, model: string) => invoke<ModelChoice>("set_model", { sessionId, model });

/** The session's thinking effort from now on, applied as `setModel`'s model is. */
export const setEffort = (sessionId: string, effort: Effort) => invoke<ModelChoice>("set_effort", { sessionId, effort });

/** Turns any rejection (a string from Rust, or an Error) into a message for the user. */
/** Saves the session as Markdown where the user picks (the save dialog opens from the shell);
 * the path, or null when the user cancelled. */
export const exportSession = (sessionId: string) => invoke<string | null>("export_session", { sessionId });

/** Opens an http(s) link in the system browser; the shell refuses anything else. */
export const openLink = (url: string) => invoke<void>("open_link", { url });

/** A project's rules (with `sessionId`'s own when given), hooks and MCP servers (not started). */
export const getProjectSettings = (projectPath: string, sessionId: string | null) =>
  invoke<ProjectSettingsView>("get_project_settings", { projectPath, sessionId });

/** The instruction ("memory") files a session of the project reads, in the order the model reads
 *  them; the project's `NERVE.md` and the user's own are always listed (`exists: false` until
 *  created). Only these paths are accepted by the three commands below. */
export const memoryFiles = (projectPath: string) => invoke<MemoryFileView[]>("memory_files", { projectPath });

/** A memory file's text ("" for one not created yet). */
export const readMemoryFile = (projectPath: string, path: string) => invoke<string>("read_memory_file", { projectPath, path });

/** Replaces a memory file's text (creating it). */
export const writeMemoryFile = (projectPath: string, path: string, text: string) =>
  invoke<void>("write_memory_file", { projectPath, path, text });

/** Appends `- line` to a memory file (creating it). */
export const appendMemoryLine = (projectPath: string, path: string, line: string) =>
  invoke<void>("append_memory_line", { projectPath, path, line });

/** The engine's rule parser on a rule being typed, with the error's UTF-16 range. */
export const checkRule = (text: string) => invoke<RuleSyntax>("check_rule", { text });

/** Adds, replaces or removes a rule in a settings file the user owns; the rules a new session gets. */
export const editRule = (projectPath: string, source: RuleSource, behavior: RuleBehavior, edit: RuleEdit) =>
  invoke<RulesView>("edit_rule", { projectPath, source, behavior, edit });

/** Adds a hook to a settings file the user owns; the file written. */
export const addHook = (projectPath: string, source: RuleSource, hook: HookSpec) =>
  invoke<string>("add_hook", { projectPath, source, hook });

/** Removes the hook with the same event, matcher and command from that file; the file written. */
export const removeHook = (projectPath: string, source: RuleSource, hook: HookSpec) =>
  invoke<string>("remove_hook", { projectPath, source, hook });

/** Runs the hook's command on a sample event of its type (built by the engine), as Nerve would. */
export const testHook = (projectPath: string, hook: HookSpec) =>
  invoke<HookTestResult>("test_hook", { projectPath, hook });

/** `nerve check-permission`: what a new session of the project would do with a call. */
export const checkCall = (projectPath: string, tool: string, input: string) =>
  invoke<PermissionCheck>("check_call", { projectPath, tool, input });

/** Starts each configured server that may start (a `.mcp.json` one once approved), lists its tools,
 *  stops it again. */
export const probeMcpServers = (projectPath: string) =>
  invoke<McpServerView[]>("probe_mcp_servers", { projectPath });

/** Approves (or withdraws) a `.mcp.json` server in the project's local settings. */
export const setMcpServerApproved = (projectPath: string, name: string, approved: boolean) =>
  invoke<McpServerView[]>("set_mcp_server_approved", { projectPath, name, approved });

/** Signs in to a remote server with OAuth: opens the browser, waits for the sign-in to finish (up
 *  to 5 minutes), then checks every server again. */
export const mcpSignIn = (projectPath: string, name: string) =>
  invoke<McpServerView[]>("mcp_sign_in", { projectPath, name });

/** Forgets a remote server's stored sign-in; the servers as they are then. */
export const mcpSignOut = (projectPath: string, name: string) =>
  invoke<McpServerView[]>("mcp_sign_out", { projectPath, name });

/** The settings files an MCP server is written to: the project's local settings (only you), its
 *  `.mcp.json` (shared, approved by each user) or the user's settings (every project). */
export type McpScope = "local" | "project" | "user";

/** Adds a server to its scope's file; the file written. */
export const addMcpServer = (projectPath: string, scope: McpScope, name: string, spec: McpServerSpec) =>
  invoke<string>("add_mcp_server", { projectPath, scope, name, spec });

/** Replaces a server's entry in its scope's file; the file written. */
export const editMcpServer = (projectPath: string, scope: McpScope, name: string, spec: McpServerSpec) =>
  invoke<string>("edit_mcp_server", { projectPath, scope, name, spec });

/** Removes a server from its scope's file; the file written. */
export const removeMcpServer = (projectPath: string, scope: McpScope, name: string) =>
  invoke<string>("remove_mcp_server", { projectPath, scope, name });

/** Copies the servers of Claude Code's or Claude Desktop's configuration into a scope. */
export const importMcpServers = (projectPath: string, from: McpImportSource, scope: McpScope) =>
  invoke<McpImportReport>("import_mcp_servers", { projectPath, from, scope });

/** Switches one tool (`mcp__server__tool`) off (a deny rule of its bare name in the project's local
 *  settings, which hides it from the model) or back on; the file written. */
/** Switches an MCP server off (later sessions do not start it) or back on, in the project's local
 *  settings; resolves to the file written. */
export const setMcpServerEnabled = (projectPath: string, name: string, enabled: boolean) =>
  invoke<string>("set_mcp_server_enabled", { projectPath, name, enabled });

export const setMcpToolEnabled = (projectPath: string, tool: string, enabled: boolean) =>
  invoke<string>("set_mcp_tool_enabled", { projectPath, tool, enabled });

/** The models a model server lists (`GET /v1/models`); the saved base URL when `baseUrl` is null. */
export const listModels = (baseUrl: string | null, customHeaders: string | null) =>
  invoke<ModelListing[]>("list_models", { baseUrl, customHeaders });

/** Stores a gateway's bearer token (sent instead of the key); never read back. */
export const setAuthToken = (token: string) => invoke<string | null>("set_auth_token", { token });

export const deleteAuthToken = () => invoke<void>("delete_auth_token");

/** What a bug report needs (version, OS, WebKitGTK, sandbox, settings files; never a key). */
export const diagnostics = () => invoke<Diagnostics>("diagnostics");

/** Opens the folder of the app's log files in the file manager. */
export const openLogFolder = () => invoke<void>("open_log_folder");

/** Reads the release feed of the settings (`update_feed_url`); `off` when none is set. */
export const checkForUpdate = () => invoke<UpdateStatus>("check_for_update");

/** A project's persisted outputs (one session's or one tool's when given) and their disk use; works
 *  with no session open. */
export const listOutputs = (projectPath: string, sessionId: string | null, tool: string | null) =>
  invoke<OutputsView>("list_outputs", { projectPath, sessionId, tool });

/** Searches the outputs' contents in the engine (ripgrep's searcher); hits stream to `onHit` as
 *  they are found; resolves when the search ends. */
export function searchOutputs(
  projectPath: string,
  pattern: string,
  regex: boolean,
  sessionId: string | null,
  tool: string | null,
  onHit: (hit: SearchHit) => void,
) {
  const channel = new Channel<SearchHit>();
  channel.onmessage = onHit;
  return invoke<SearchDone>("search_outputs", { projectPath, pattern, regex, sessionId, tool, onHit: channel });
}

/** Lines `first..first+count` (1-based) of an output, by call id or path. */
export const readOutputLines = (projectPath: string, output: string, first: number, count: number) =>
  invoke<OutputLine[]>("read_output_lines", { projectPath, output, first, count });

/** The last `count` lines of an output (read backwards from its end by the engine). */
export const tailOutput = (projectPath: string, output: string, count: number) =>
  invoke<string[]>("tail_output", { projectPath, output, count });

/** Deletes outputs (call ids or paths), or all of a session's; what it freed. */
export const deleteOutputs = (projectPath: string, outputs: string[], sessionId: string | null) =>
  invoke<Deleted>("delete_outputs", { projectPath, outputs, sessionId });

/** Saves a byte-identical copy where the user picks (the save dialog opens from the shell). */
export const saveOutputAs = (projectPath: string, output: string) =>
  invoke<string | null>("save_output_as", { projectPath, output });

/** Shows the output's file in the system's file manager. */
export const revealOutput = (projectPath: string, output: string) =>
  invoke<void>("reveal_output", { projectPath, output });

export function errorText(e: unknown): string {
  if (typeof e === "string") return e;
  if (e instanceof Error) return e.message;
  try {
    return JSON.stringify(e);
  } catch {
    return String(e);
  }
}

/** The project's session worktrees with where each stands. */
export const listWorktrees = (projectPath: string) => invoke<WorktreeStatus[]>("list_worktrees", { projectPath });

/** Lands a session's work in the main checkout; a conflict is an outcome (nothing changed). */
export const landWorktree = (projectPath: string, sessionId: string, strategy: LandStrategy, message: string | null) =>
  invoke<LandOutcome>("land_worktree", { projectPath, sessionId, strategy, message });

/** What discarding a session's worktree would lose. */
export const worktreeDiscardPreview = (projectPath: string, sessionId: string) =>
  invoke<DiscardPreview>("worktree_discard_preview", { projectPath, sessionId });

/** Throws a session's worktree away (the session ends first if open). */
export const discardWorktree = (projectPath: string, sessionId: string, keepBranch: boolean) =>
  invoke<WorktreeInfo>("discard_worktree", { projectPath, sessionId, keepBranch });

/** Stages files in the session's folder. */
export const gitStage = (sessionId: string, paths: string[]) => invoke<void>("git_stage", { sessionId, paths });

/** Unstages files in the session's folder. */
export const gitUnstage = (sessionId: string, paths: string[]) => invoke<void>("git_unstage", { sessionId, paths });

/** Commits what is staged in the session's folder; the new commit's id. */
export const gitCommit = (sessionId: string, message: string) => invoke<string>("git_commit", { sessionId, message });

/** Creates a branch at the session's folder's current commit. */
export const gitCreateBranch = (sessionId: string, name: string) => invoke<void>("git_create_branch", { sessionId, name });

/** A commit message for what is staged, from the fast model, to edit. */
export const suggestCommitMessage = (sessionId: string) => invoke<string>("suggest_commit_message", { sessionId });

/** Undoes one hunk of a change in the file as it is now (not while a turn runs). */
export const undoHunk = (sessionId: string, path: string, hunk: DiffHunk) => invoke<void>("undo_hunk", { sessionId, path, hunk });

/** The prompt sending review comments on the agent's changes back to it. */
export const reviewPrompt = (sessionId: string, comments: ReviewComment[]) => invoke<string>("review_prompt", { sessionId, comments });

/**
 * Undoes the latest rewind: the conversation it cut comes back when nothing was said since, and
 * the files it put back are brought forward (those changed since are left as they are).
 */
export const undoRewind = (sessionId: string) => invoke<RewindUndoOutcome>("undo_rewind", { sessionId });

/** Stages one hunk of a file's uncommitted change. */
export const gitStageHunk = (sessionId: string, path: string, hunk: DiffHunk) => invoke<void>("git_stage_hunk", { sessionId, path, hunk });

/** Unstages one hunk of a file's staged change. */
export const gitUnstageHunk = (sessionId: string, path: string, hunk: DiffHunk) => invoke<void>("git_unstage_hunk", { sessionId, path, hunk });

/** Puts a file back to the last commit (a renamed file's old name comes back); ask first. */
export const gitRevertFile = (sessionId: string, path: string, renamedFrom: string | null) =>
  invoke<void>("git_revert_file", { sessionId, path, renamedFrom });

/**
 * A turn ended in a session: the shell sends a system notification when the user is not looking
 * (the session not `shown`, or the window in the background) and the settings want one. Resolves
 * to whether the user was looking.
 */
export const turnEnded = (sessionId: string, title: string, end: TurnEnd, error: string | null, shown: boolean) =>
  invoke<boolean>("turn_ended", { sessionId, title, end, error, shown });

/** Hears of clicks on the shell's notices (the window is focused by then): `show_session` asks for
 *  the notice's session. A later call replaces the earlier channel. */
export function watchAttention(onEvent: (e: AttentionEvent) => void) {
  const channel = new Channel<AttentionEvent>();
  channel.onmessage = onEvent;
  return invoke<void>("watch_attention", { onEvent: channel });
}

/** Removes the project's worktrees whose session or folder is gone; what was removed and kept. */
export const cleanWorktrees = (projectPath: string) => invoke<CleanReport>("clean_worktrees", { projectPath });

/**
 * Starts the user's login shell in a PTY, `cols`×`rows`, in the session's folder (its worktree when
 * it has one). The shell is the user's: not sandboxed, and nothing of it reaches the model. Its
 * output and its exit arrive on `onEvent`, also while no view of it shows.
 */
export function terminalOpen(sessionId: string, cols: number, rows: number, onEvent: (e: TerminalEvent) => void) {
  const channel = new Channel<TerminalEvent>();
  channel.onmessage = onEvent;
  return invoke<TerminalInfo>("terminal_open", { sessionId, cols, rows, onEvent: channel });
}

/** Keystrokes or pasted text for a terminal's shell, as they are. */
export const terminalWrite = (terminalId: string, data: string) => invoke<void>("terminal_write", { terminalId, data });

/** The terminal's view changed size: the PTY follows (the shell gets SIGWINCH). */
export const terminalResize = (terminalId: string, cols: number, rows: number) =>
  invoke<void>("terminal_resize", { terminalId, cols, rows });

/** Ends a terminal: its shell is killed. */
export const terminalClose = (terminalId: string) => invoke<void>("terminal_close", { terminalId });

/** The session's background shells and sub-agents, oldest first: running, ended, and those lost
 *  with an app that ended while they ran. */
export const listTasks = (sessionId: string) => invoke<TaskView[]>("list_tasks", { sessionId });

/** Stops a task: a background shell's process group, or one sub-agent (the turn goes on). The
 *  task's end arrives as a `task_changed` event. */
export const stopTask = (sessionId: string, taskId: string) => invoke<TaskView>("stop_task", { sessionId, taskId });

/** The last `count` lines a background shell wrote (its output file, the one the model reads). */
export const tailTask = (sessionId: string, taskId: string, count: number) =>
  invoke<string[]>("tail_task", { sessionId, taskId, count });

/** A finished sub-agent's conversation as it was when it ended (a resumed session's Agent card). */
export const subagentTranscript = (sessionId: string, agentId: string) =>
  invoke<SubagentTranscript>("subagent_transcript", { sessionId, agentId });

/** The session's events between turns (a background command ending after its turn did) go to
 *  `onEvent`; a later call replaces the channel. */
export function watchSession(sessionId: string, onEvent: (e: Event) => void) {
  const channel = new Channel<Event>();
  channel.onmessage = onEvent;
  return invoke<void>("watch_session", { sessionId, onEvent: channel });
}
