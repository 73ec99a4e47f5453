// Event and request builders shaped like the engine's serde JSON, for tests.
import type { ChangeScope } from "../bindings/ChangeScope";
import type { ChangeSet } from "../bindings/ChangeSet";
import type { CodeRewindPlan } from "../bindings/CodeRewindPlan";
import type { Event } from "../bindings/Event";
import type { ChangeKind } from "../bindings/ChangeKind";
import type { DiffHunk } from "../bindings/DiffHunk";
import type { FileChange } from "../bindings/FileChange";
import type { PermissionPreview } from "../bindings/PermissionPreview";
import type { PermissionRequest } from "../bindings/PermissionRequest";
import type { PlannedRestore } from "../bindings/PlannedRestore";
import type { SedFileChange } from "../bindings/SedFileChange";
import type { ToolKind } from "../bindings/ToolKind";
import type { EditableField } from "../bindings/EditableField";
import type { UnseenCall } from "../bindings/UnseenCall";
import type { TranscriptSummary } from "../bindings/TranscriptSummary";
import type { PromptInfo } from "../bindings/PromptInfo";
import type { SessionSearchHit } from "../bindings/SessionSearchHit";
import type { SnippetPart } from "../bindings/SnippetPart";

type ToolCompleted = Extract<Event, { type: "tool_completed" }>;
type Usage = Extract<Event, { type: "usage" }>;

/** One response's usage: its tokens, the session's cost so far and how full the window is. */
export function usage(fields: Partial<Omit<Usage, "type">> = {}): Event {
  return {
    type: "usage",
    input_tokens: 100,
    output_tokens: 10,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
    session_cost_usd: null,
    session_cache_read_tokens: 0,
    session_cache_saved_usd: null,
    context_tokens: 110,
    context_window: 200_000,
    ...fields,
  };
}

export function queued(
  id: string,
  batch: number,
  concurrent: boolean,
  name = "Read",
  summary = `${name} ${id}`,
  destructive = false,
): Event {
  return {
    type: "tool_queued",
    tool_use_id: id,
    tool_name: name,
    kind: kindOf(name),
    display_name: name,
    summary,
    batch_id: batch,
    concurrent,
    destructive,
    sandbox: null,
  };
}

export function completed(id: string, extra: Partial<Omit<ToolCompleted, "type" | "tool_use_id">> = {}): Event {
  return {
    type: "tool_completed",
    tool_use_id: id,
    content: [{ type: "text", text: "ok" }],
    is_error: false,
    error: null,
    denied: false,
    cancelled: false,
    display: null,
    persisted_path: null,
    persisted_bytes: null,
    elapsed_ms: 12,
    changed_files: [],
    ...extra,
  };
}

/** What the engine says of the built-in tools these fixtures name (crates/nerve/src/registry.rs
 *  pins the same table): their kind and the field a user may edit. */
const KINDS: Record<string, [ToolKind, EditableField | null]> = {
  Bash: [{ kind: "shell" }, "command"],
  Edit: [{ kind: "file_edit" }, "new_string"],
  Write: [{ kind: "file_write" }, "content"],
  Read: [{ kind: "read" }, null],
  Grep: [{ kind: "search" }, null],
  Glob: [{ kind: "search" }, null],
  WebFetch: [{ kind: "fetch" }, null],
  ExitPlanMode: [{ kind: "plan" }, null],
  Agent: [{ kind: "agent" }, null],
  Network: [{ kind: "fetch" }, null],
};

export function kindOf(toolName: string): ToolKind {
  return Object.hasOwn(KINDS, toolName) ? KINDS[toolName]![0] : { kind: "other" };
}

export function request(fields: Partial<PermissionRequest> & Pick<PermissionRequest, "id" | "tool_name">): PermissionRequest {
  const [kind, editable_field] = Object.hasOwn(KINDS, fields.tool_name) ? KINDS[fields.tool_name]! : [{ kind: "other" } as ToolKind, null];
  return {
    kind,
    display_name: fields.tool_name === "Network" ? "Network request" : fields.tool_name,
    editable_field,
    tool_use_id: `tu-${fields.id}`,
    input: {},
    summary: `${fields.tool_name} call`,
    reason: "Nothing pre-approves it",
    parts: [],
    suggestions: [],
    suggestion_note: null,
    destructive: false,
    preview: null,
    agent_label: null,
    agent_call_id: null,
    sandbox: null,
    network: null,
    ...fields,
  };
}

export const bashRequest = () =>
  request({
    id: "r-bash",
    tool_name: "Bash",
    input: { command: "git status && rm -rf build", description: "Clean" },
    summary: "Bash git status && rm -rf build",
    parts: [
      { part: "git status", decision: "read_only", rule: null },
      {
        part: "rm -rf build",
        decision: "needs_approval",
        rule: null,
      },
      {
        part: "curl evil",
        decision: "denied",
        rule: { rule: "Bash(curl *)", behavior: "deny", source: "projectSettings" },
      },
    ],
    suggestions: ["Bash(rm -rf build)", "Bash(git status:*)"],
  });

/** One file of a `sed -i` simulation: line 2 of a three-line `main` goes from `before` to `after`. */
export function sedFile(path: string, before: string, after: string): SedFileChange {
  return {
    path,
    old_sha256: "0",
    new_sha256: "1",
    hunks: [
      {
        old_start: 1,
        old_lines: 3,
        new_start: 1,
        new_lines: 3,
        lines: [
          { tag: "context", text: "fn main() {" },
          { tag: "delete", text: `    ${before}` },
          { tag: "insert", text: `    ${after}` },
          { tag: "context", text: "}" },
        ],
      },
    ],
    diff: `--- a/${path}\n+++ b/${path}\n@@ -1,3 +1,3 @@\n fn main() {\n-    ${before}\n+    ${after}\n }\n`,
  };
}

export const sedRequest = () =>
  request({
    id: "r-sed",
    tool_name: "Bash",
    input: { command: "sed -i 's/foo/bar/' src/a.rs" },
    parts: [{ part: "sed -i 's/foo/bar/' src/a.rs", decision: "needs_approval", rule: null }],
    preview: { kind: "sed_edit", files: [sedFile("src/a.rs", "foo();", "bar();")] },
  });

/** An Edit's or Write's preview as the engine sends it (the unified text is not shown). */
export function filePreview(
  path: string,
  kind: ChangeKind,
  hunks: DiffHunk[],
  old_text: string | null = null,
  new_text: string | null = null,
): PermissionPreview {
  return { kind: "file_change", diff: { path, kind, hunks, unified: "" }, old_text, new_text };
}

/** One hunk replacing line 2 of a four-line `main` with `line` (`let x = 2;` as proposed). */
export const mainHunk = (line: string): DiffHunk => ({
  old_start: 1,
  old_lines: 4,
  new_start: 1,
  new_lines: 4,
  lines: [
    { tag: "context", text: "fn main() {" },
    { tag: "delete", text: "    let x = 1;" },
    { tag: "insert", text: `    ${line}` },
    { tag: "context", text: '    println!("{x}");' },
    { tag: "context", text: "}" },
  ],
});

const OLD = "fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n";
const NEW = "fn main() {\n    let x = 2;\n    println!(\"{x}\");\n}\n";

export const editRequest = () =>
  request({
    id: "r-edit",
    tool_name: "Edit",
    input: { file_path: "/p/src/main.rs", old_string: "let x = 1;", new_string: "let x = 2;" },
    suggestions: ["Edit(src/**)"],
    preview: filePreview("/p/src/main.rs", "update", [mainHunk("let x = 2;")], OLD, NEW),
  });

/** A Write creating a one-line file with `line`. */
export const createHunk = (line: string): DiffHunk => ({
  old_start: 0,
  old_lines: 0,
  new_start: 1,
  new_lines: 1,
  lines: [{ tag: "insert", text: line }],
});

export const writeRequest = () =>
  request({
    id: "r-write",
    tool_name: "Write",
    input: { file_path: "/p/new.py", content: "print('hi')\n" },
    preview: filePreview("/p/new.py", "create", [createHunk("print('hi')")], "", "print('hi')\n"),
  });

export const PLAN = "## Steps\n\n1. Change `src/a.rs`\n2. Run the tests\n\n<script>alert(1)</script>";

export const planRequest = () =>
  request({
    id: "r-plan",
    tool_name: "ExitPlanMode",
    input: { plan: PLAN },
    summary: "plan of 6 lines",
    reason: "Approve the plan? Leaving plan mode needs the user's approval",
    // The engine suggests a bare tool rule for tools it cannot look into; it makes no sense here.
    suggestions: ["ExitPlanMode"],
  });

/** A modified text file whose first line changed from `before` to `after`. */
export function fileChange(path: string, fields: Partial<FileChange> = {}): FileChange {
  return {
    path,
    status: "modified",
    added: 1,
    removed: 1,
    binary: false,
    hunks: [
      {
        old_start: 1,
        old_lines: 2,
        new_start: 1,
        new_lines: 2,
        lines: [
          { tag: "delete", text: "before" },
          { tag: "insert", text: "after" },
          { tag: "context", text: "same" },
        ],
      },
    ],
    seen: "tool",
    calls: [{ tool_use_id: "tu-1", tool_name: "Edit" }],
    ...fields,
  };
}

export const changeSet = (scope: ChangeScope, files: FileChange[], unseen: UnseenCall[] = []): ChangeSet => ({ scope, files, unseen });

export const unseenCall = (tool_use_id: string, message: string, turn = 1): UnseenCall => ({
  turn,
  call: { tool_use_id, tool_name: "Bash" },
  reason: { kind: "not_git_repository" },
  message,
});

const present = (sha: string) => ({ state: "present", sha256: sha, size: 10 }) as const;

/** A file a rewind would put back; `delete` means it did not exist then. */
export function planned(path: string, fields: Partial<PlannedRestore> = {}): PlannedRestore {
  const deleting = fields.action === "delete";
  return {
    path,
    action: "write",
    target: deleting ? { state: "absent" } : present("old"),
    current: present("new"),
    expected: present("new"),
    changed_on_disk: false,
    ...fields,
  };
}

export const rewindPlan = (to_turn: number, files: PlannedRestore[], unseen: UnseenCall[] = []): CodeRewindPlan => ({ to_turn, files, unseen });

/** A session as the sidebar lists it. */
export const sessionSummary = (id: string, fields: Partial<TranscriptSummary> = {}): TranscriptSummary => ({
  session_id: id,
  path: `/data/projects/p/${id}.jsonl`,
  modified_ms: 1_000,
  created_ms: 0,
  title: `Session ${id}`,
  named: false,
  prompts: 1,
  cost_usd: null,
  forked_from: null,
  matched_prompt: null,
  ...fields,
});

/** A prompt as the engine lists it: sent at `time_ms`, with how its turn ended. */
export const promptInfo = (turn: number, text: string, message_index: number | null, fields: Partial<PromptInfo> = {}): PromptInfo => ({
  turn,
  text,
  time_ms: 1_000 * turn,
  message_index,
  outcome: "end_turn",
  ended_ms: 1_000 * turn + 500,
  ...fields,
});

/** A full-text search hit; `snippet` is `[text, matched]` pairs. */
export const searchHit = (
  session_id: string,
  snippet: [string, boolean][],
  fields: Partial<Omit<SessionSearchHit, "snippet">> = {},
): SessionSearchHit => ({
  session_id,
  title: `Session ${session_id}`,
  kind: "reply",
  turn: 1,
  tool_use_id: null,
  snippet: snippet.map(([text, matched]): SnippetPart => ({ text, matched })),
  modified_ms: 1_000,
  ...fields,
});
