// Which waiting permission requests belong together: calls the engine queued in one batch
// (`tool_queued`'s batch_id) of the same agent. The permission dialog answers such a group in one
// panel (BatchApprovalPanel) instead of one request at a time. Pure functions, unit-tested.
import type { PermissionRequest } from "../bindings/PermissionRequest";
import type { ToolCalls } from "./conversation/types";
import { asObject } from "./permission";

/**
 * The batch a waiting request's call belongs to, as a key naming the agent too: a sub-agent
 * numbers its batches on its own, so its calls are looked up in its Agent card's conversation and
 * never grouped with the main agent's (nor another sub-agent's). Null when the request is not
 * grouped: a plan to approve and a sandboxed command's network access are questions of their own,
 * and a call the conversation does not hold (yet) or that has no engine batch (a streamed call's
 * placeholder id is negative) has no batch to speak of.
 */
export function batchKey(tools: ToolCalls, request: PermissionRequest): string | null {
  if (request.kind.kind === "plan" || request.network !== null) return null;
  const agent = request.agent_call_id;
  // A sub-agent's request names its Agent call; one naming a sub-agent without it cannot be placed.
  if (agent === null && request.agent_label !== null) return null;
  const calls = agent === null ? tools : tools.get(agent)?.subagent?.state.tools;
  const call = calls?.get(request.tool_use_id);
  if (!call || call.batch_id < 0) return null;
  return `${agent ?? ""}#${call.batch_id}`;
}

/** What the dialog shows first: the oldest request with every other waiting request of its batch
 *  (queue order), and the batch's key (null: the oldest request stands alone). */
export interface FirstGroup {
  key: string | null;
  requests: PermissionRequest[];
}

export function firstGroup(tools: ToolCalls | null, requests: PermissionRequest[]): FirstGroup {
  const first = requests[0];
  if (!first) return { key: null, requests: [] };
  const key = tools && requests.length > 1 ? batchKey(tools, first) : null;
  if (key === null || !tools) return { key: null, requests: [first] };
  return { key, requests: requests.filter((r) => r === first || batchKey(tools, r) === key) };
}

/** The rules the waiting calls suggest, first come first, each once (the rule box starts with the
 *  first; a select offers them all). */
export function distinctSuggestions(requests: PermissionRequest[]): string[] {
  return [...new Set(requests.flatMap((r) => r.suggestions))];
}

/** How a destructive call is named next to "Allow all": its command for a shell call (what the user
 *  reads as dangerous), else the engine's summary. */
export function shortName(request: PermissionRequest): string {
  const command = asObject(request.input).command;
  if (request.kind.kind === "shell" && typeof command === "string" && command.trim()) return command.trim();
  return request.summary || request.display_name;
}

/** "a", "a and b", "a, b and c". */
export function listed(names: string[]): string {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}
