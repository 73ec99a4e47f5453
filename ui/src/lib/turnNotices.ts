// What the user is told when a turn ends or a permission request comes in: the words for the
// screen reader and the sidebar's marker. Whether a system notification goes out is the shell's
// call (`turn_ended`: it knows the window's focus and the settings); these only name the outcome.
import type { PermissionRequest } from "../bindings/PermissionRequest";
import type { TurnEnd } from "../bindings/TurnEnd";

/** The sidebar's word for a turn that ended unseen, kept until the session is opened. */
export type TurnMarker = "done" | "failed";

/** Whether an ended turn is news: a turn the user stopped (Esc, Send now) is not. */
export const isNews = (end: TurnEnd): boolean => end !== "aborted" && end !== "interrupted";

/** "done" for a turn that finished (a hook may end it on purpose), "failed" for one that failed or
 *  stopped at a limit (it needs the user either way). */
export const markerFor = (end: TurnEnd): TurnMarker => (end === "end_turn" || end === "stopped_by_hook" ? "done" : "failed");

/** What the screen reader hears: "Fix the parser: done." */
export function turnEndText(title: string, end: TurnEnd, error: string | null): string {
  if (markerFor(end) === "done") return `${title}: done.`;
  if (end === "max_turns") return `${title}: stopped at the call limit.`;
  // Without the engine's message, the words of the shell's notification for the same end.
  const why = error?.trim().replace(/\.+$/, "") || FAILURES[end];
  return why ? `${title}: failed: ${why}.` : `${title}: failed.`;
}

const FAILURES: Partial<Record<TurnEnd, string>> = {
  max_tokens: "the answer reached its length limit",
  refusal: "the model declined to go on",
};

/** What the screen reader hears of a new permission request, in whichever session it waits. */
export const approvalText = (title: string, request: PermissionRequest): string => `${title}: approval needed: ${request.summary}`;
