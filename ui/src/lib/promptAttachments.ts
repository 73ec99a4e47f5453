// What a prompt carries besides its words and images (`PromptAttachment`): a folder's listing, a
// web page, another session of the project, text selected in a terminal. The prompt box holds
// them as chips (an icon per kind, a short label, a remove button) and they go with the prompt as
// `send_prompt`'s `attachments`; the engine reads each when the prompt is sent, and one it cannot
// read fails the send (the prompt, its images and its attachments stay in the box). The `@` menu
// offers them: `@src/` a folder, `@https://…` a page, `@session:words` a session; a terminal's
// "Add selection to prompt" its selection. A past prompt shows them by kind and label
// (`AttachmentView`).
import type { LucideIcon } from "@lucide/svelte";
import Folder from "@lucide/svelte/icons/folder";
import Globe from "@lucide/svelte/icons/globe";
import MessageSquare from "@lucide/svelte/icons/message-square";
import SquareTerminal from "@lucide/svelte/icons/square-terminal";
import type { AttachmentKind } from "../bindings/AttachmentKind";
import type { FileMatch } from "../bindings/FileMatch";
import type { PromptAttachment } from "../bindings/PromptAttachment";
import { trimSelection } from "./terminalSelection";

/** Sent as the prompt's text when only attachments go (no words, no images): the API rejects an
 *  empty text block. */
export const ATTACHMENT_ONLY_PROMPT = "(attached)";

/** An attachment in the prompt box or in a queued prompt: what is sent, and what its chip says. */
export interface AttachmentChip {
  /** Tells chips apart. */
  id: number;
  attachment: PromptAttachment;
  /** The chip's text (a folder's path, a page's host and path, a session's title…). */
  label: string;
}

/** A session the `@session:` menu offers. */
export interface SessionChoice {
  session_id: string;
  title: string;
}

/** An entry of the `@` menu: an attachment to add (first), or a file to name. */
export type MentionOption =
  | { kind: "folder"; path: string }
  | { kind: "url"; url: string }
  | { kind: "session"; session: SessionChoice }
  | { kind: "file"; match: FileMatch };

/** The attachments the menu offers for what is typed, before any search answers: the folder typed
 *  (ending in `/`) or the page. */
export function offeredNow(target: MentionTarget | null): MentionOption[] {
  if (target?.kind === "url" && target.url) return [{ kind: "url", url: target.url }];
  if (target?.kind === "file" && target.folder) return [{ kind: "folder", path: target.folder }];
  return [];
}

/** What `@…` names, by what is typed after the `@`: a page (`http://`, `https://`), a session
 *  (`session:` and words of its title), else files (and, ending in `/`, the folder typed). */
export type MentionTarget =
  | { kind: "url"; url: string | null }
  | { kind: "session"; words: string }
  | { kind: "file"; folder: string | null };

const URL_START = /^https?:\/\//i;
const SESSION_START = /^session:/i;

/** What a mention's query names; a URL that cannot be fetched as typed (no host yet) has `url`
 *  null, so nothing is offered for it (and no file search either). */
export function mentionTarget(query: string): MentionTarget {
  if (URL_START.test(query)) return { kind: "url", url: attachableUrl(query) };
  if (SESSION_START.test(query)) return { kind: "session", words: query.replace(SESSION_START, "") };
  return { kind: "file", folder: query.endsWith("/") ? query : null };
}

/** The address when it is an http(s) URL with a host, else null. */
export function attachableUrl(text: string): string | null {
  if (!URL_START.test(text)) return null;
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname ? text : null;
  } catch {
    return null;
  }
}

/** Longest label a chip shows before it is cut (with "…"). */
export const MAX_LABEL = 48;

/** A label no longer than `max` characters: the end is cut and "…" says so. */
export function shorten(text: string, max = MAX_LABEL): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}

/** A folder as a chip says it: its path with one `/` at the end ("src/"). */
export function folderLabel(path: string): string {
  const trimmed = path.trim().replace(/\/+$/, "");
  return `${trimmed || "."}/`;
}

/** A page as a chip says it: host and path, without the scheme (and without a lone "/"),
 *  shortened ("example.com/docs/intro"). */
export function urlLabel(address: string): string {
  try {
    const url = new URL(address);
    const path = url.pathname === "/" ? "" : url.pathname;
    return shorten(`${url.host}${path}${url.search}`);
  } catch {
    return shorten(address);
  }
}

/** How many lines a selection has, as its chip says it. */
export function selectionLabel(text: string): string {
  const lines = text.split("\n").length;
  return `Terminal selection (${lines} ${lines === 1 ? "line" : "lines"})`;
}

/** The label of a chip for an attachment; a session's is its title (given by who chose it). */
export function labelOf(attachment: PromptAttachment, title?: string): string {
  switch (attachment.kind) {
    case "folder":
      return folderLabel(attachment.path);
    case "url":
      return urlLabel(attachment.url);
    case "session":
      return shorten(title?.trim() || "Session");
    case "terminal_selection":
      return selectionLabel(attachment.text);
  }
}

/** A terminal's selection as an attachment (the padding the terminal adds dropped), or null when
 *  nothing but blanks is selected. */
export function selectionAttachment(selection: string): PromptAttachment | null {
  const text = trimSelection(selection);
  return text === null ? null : { kind: "terminal_selection", text };
}

/** The icon of an attachment's kind (the same in the prompt box and on a past prompt). */
export function attachmentIcon(kind: AttachmentKind): LucideIcon {
  switch (kind) {
    case "folder":
      return Folder;
    case "url":
      return Globe;
    case "session":
      return MessageSquare;
    case "terminal_selection":
      return SquareTerminal;
  }
}

/** What a kind is called in words (for the remove button's label and hover texts). */
export function kindWords(kind: AttachmentKind): string {
  switch (kind) {
    case "folder":
      return "folder";
    case "url":
      return "page";
    case "session":
      return "session";
    case "terminal_selection":
      return "terminal selection";
  }
}

/** What a chip says on hover: the whole of what it names. */
export function chipTitle(attachment: PromptAttachment, label: string): string {
  switch (attachment.kind) {
    case "folder":
      return `Folder ${folderLabel(attachment.path)}: its listing goes with the prompt`;
    case "url":
      return `Page ${attachment.url}: fetched when the prompt is sent`;
    case "session":
      return `Session “${label}”: an abridged copy goes with the prompt`;
    case "terminal_selection":
      return shorten(attachment.text, 400);
  }
}

/** Whether two attachments name the same thing (the box takes each once). */
export function sameAttachment(a: PromptAttachment, b: PromptAttachment): boolean {
  switch (a.kind) {
    case "folder":
      return b.kind === "folder" && folderLabel(a.path) === folderLabel(b.path);
    case "url":
      return b.kind === "url" && a.url === b.url;
    case "session":
      return b.kind === "session" && a.session_id === b.session_id;
    case "terminal_selection":
      return b.kind === "terminal_selection" && a.text === b.text;
  }
}

/** What `send_prompt` takes. */
export const toPromptAttachments = (chips: AttachmentChip[]): PromptAttachment[] => chips.map((c) => c.attachment);

/** "+1 attachment", "+3 attachments": a queued prompt's attachments. */
export function attachmentCount(count: number): string {
  return `+${count} attachment${count === 1 ? "" : "s"}`;
}

/** The sessions the `@session:` menu offers: those whose title holds the words typed (any case),
 *  not the session the prompt is for, in the order listed (newest first), at most `limit`. */
export function sessionMatches(
  sessions: readonly { session_id: string; title: string }[],
  words: string,
  exclude: string,
  limit = 20,
): SessionChoice[] {
  const wanted = words.trim().toLowerCase();
  return sessions
    .filter((s) => s.session_id !== exclude && s.title.toLowerCase().includes(wanted))
    .slice(0, limit)
    .map(({ session_id, title }) => ({ session_id, title }));
}
