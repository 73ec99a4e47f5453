// Events of calls whose input streams and of sub-agents, shaped like the engine's serde JSON.
import type { Event } from "../bindings/Event";
import type { TaskView } from "../bindings/TaskView";
import { kindOf } from "./fixtures";

/** The model began writing a call (its input streams). */
export function inputStarted(id: string, name: string): Event {
  return { type: "tool_input_started", tool_use_id: id, tool_name: name, kind: kindOf(name), display_name: name };
}

/** More of a call's input: `text` follows what came before, or replaces it (`restart`). */
export function inputDelta(id: string, text: string, fields: { path?: string | null; restart?: boolean; bytes?: number } = {}): Event {
  return {
    type: "tool_input_delta",
    tool_use_id: id,
    path: fields.path ?? null,
    text,
    restart: fields.restart ?? false,
    input_bytes: fields.bytes ?? text.length,
  };
}

/** One event of a sub-agent's own loop, as its Agent call's progress. */
export function subagentStep(agentCallId: string, agentId: string, event: Event): Event {
  return { type: "tool_progress", tool_use_id: agentCallId, progress: { kind: "subagent", agent_id: agentId, event } };
}

/** A task as the engine lists it: a running sub-agent, unless `fields` say otherwise. */
export function subagentTask(agentId: string, agentCallId: string, fields: Partial<TaskView> = {}): TaskView {
  return {
    id: agentId,
    tool_use_id: agentCallId,
    kind: { kind: "subagent", description: "Find the tests", subagent_type: "Explore" },
    started_at_ms: 0,
    ended_at_ms: null,
    status: "running",
    exit_code: null,
    output_path: null,
    ...fields,
  };
}
