// Which icon a tool call shows: one per kind of tool (as the engine says) and one per state. Pure lookups, so the
// mapping is unit-tested; components/Icon.svelte renders the result (decorative, aria-hidden).
import type { LucideIcon } from "@lucide/svelte";
import Ban from "@lucide/svelte/icons/ban";
import Bot from "@lucide/svelte/icons/bot";
import Check from "@lucide/svelte/icons/check";
import CircleStop from "@lucide/svelte/icons/circle-stop";
import CircleX from "@lucide/svelte/icons/circle-x";
import ClipboardList from "@lucide/svelte/icons/clipboard-list";
import Clock from "@lucide/svelte/icons/clock";
import FilePen from "@lucide/svelte/icons/file-pen";
import FileText from "@lucide/svelte/icons/file-text";
import Globe from "@lucide/svelte/icons/globe";
import ListChecks from "@lucide/svelte/icons/list-checks";
import LoaderCircle from "@lucide/svelte/icons/loader-circle";
import PenLine from "@lucide/svelte/icons/pen-line";
import Plug from "@lucide/svelte/icons/plug";
import Search from "@lucide/svelte/icons/search";
import ShieldQuestionMark from "@lucide/svelte/icons/shield-question-mark";
import Terminal from "@lucide/svelte/icons/terminal";
import Wrench from "@lucide/svelte/icons/wrench";
import type { ToolKind } from "../bindings/ToolKind";
import type { ToolStatus } from "./conversation/types";

/** The icon of a tool, by the kind of work the engine says it does. */
export function toolIcon(kind: ToolKind): LucideIcon {
  switch (kind.kind) {
    case "shell":
      return Terminal;
    case "file_edit":
    case "file_write":
      return FilePen;
    case "read":
      return FileText;
    case "search":
      return Search;
    case "fetch":
      return Globe;
    case "plan":
      return ClipboardList;
    case "agent":
      return Bot;
    case "todo":
      return ListChecks;
    case "mcp":
      return Plug;
    case "other":
      return Wrench;
  }
}

/** What a call's state looks like; `spin` turns the icon (a running call). */
export interface StateIcon {
  icon: LucideIcon;
  spin: boolean;
}

const BY_STATUS: Record<ToolStatus, StateIcon> = {
  streaming: { icon: PenLine, spin: false },
  queued: { icon: Clock, spin: false },
  executing: { icon: LoaderCircle, spin: true },
  completed: { icon: Check, spin: false },
  error: { icon: CircleX, spin: false },
  denied: { icon: Ban, spin: false },
  cancelled: { icon: CircleStop, spin: false },
};

const AWAITING: StateIcon = { icon: ShieldQuestionMark, spin: false };

/** The icon of a call's state. A call the user is asked about (still queued or running) waits
 *  for them, whatever else it is doing. */
export function stateIcon(status: ToolStatus, awaitingApproval = false): StateIcon {
  if (awaitingApproval && (status === "queued" || status === "executing")) return AWAITING;
  return BY_STATUS[status];
}
