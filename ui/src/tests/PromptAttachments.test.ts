// Attachments beside a prompt's words and images: the `@` menu attaches the folder typed
// (`@src/`), a page (`@https://…`) or another session (`@session:words`) as chips in place of the
// typed mention; the chips go with the prompt as `send_prompt`'s `attachments`, wait in the queue
// with it, come back when the engine cannot read one, and a past prompt shows what it carried.
// Labels are text, never HTML.
import { describe, expect, it, vi } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import type { AttachmentView } from "../bindings/AttachmentView";
import type { FileMatch } from "../bindings/FileMatch";
import type { PromptAttachment } from "../bindings/PromptAttachment";
import type { TranscriptSummary } from "../bindings/TranscriptSummary";
import Conversation from "../lib/components/Conversation.svelte";
import UserAttachments from "../lib/components/UserAttachments.svelte";
import { SessionStore } from "../lib/conversation/session.svelte";
import { removeMention } from "../lib/mentions";
import {
  ATTACHMENT_ONLY_PROMPT,
  folderLabel,
  labelOf,
  mentionTarget,
  selectionAttachment,
  sessionMatches,
  urlLabel,
} from "../lib/promptAttachments";
import { sessionSummary } from "./fixtures";
import { liveSession, sessionInfo, type Handler } from "./live";
import { answered, said, userMessage } from "./messages";

const XSS = "<img src=x onerror=alert(1)>";

const match = (path: string, indices: number[] = []): FileMatch => ({ path, score: 100 - indices.length, indices });

/** The project's sessions as `list_sessions` lists them: s1 is the one the prompt box is for. */
const SESSIONS: TranscriptSummary[] = [
  sessionSummary("s1", { title: "This very session" }),
  sessionSummary("s2", { title: "Fix the parser" }),
  sessionSummary("s3", { title: "Write the docs" }),
  sessionSummary("s4", { title: "fix CI" }),
];

function setup(handlers: Record<string, Handler> = {}, session?: SessionStore) {
  const live = liveSession(sessionInfo(), { list_sessions: () => SESSIONS, ...handlers });
  const user = userEvent.setup();
  render(Conversation, { session: session ?? live.session, onclose: vi.fn() });
  const box = screen.getByTestId("prompt-input") as HTMLTextAreaElement;
  return { live, user, box };
}

const chips = () => screen.queryAllByTestId("attachment-chip");
const chipKinds = () => chips().map((c) => c.dataset.kind);
const chipLabels = () => chips().map((c) => c.querySelector(".a-name")?.textContent);
const words = (el: Element) => el.textContent?.replace(/\s+/g, " ").trim();
const problem = () => screen.queryByTestId("attachment-problem");

/** Attaches the folder `src/` through the `@` menu. */
async function attachFolder(user: ReturnType<typeof userEvent.setup>, box: HTMLTextAreaElement) {
  await user.type(box, "@src/");
  await screen.findByTestId("attach-folder");
  await user.keyboard("{Enter}");
  await waitFor(() => expect(chipKinds()).toContain("folder"));
}

describe("what a mention names, and the chips' labels", () => {
  it("tells a page, a session and a folder apart", () => {
    expect(mentionTarget("https://example.com/a")).toEqual({ kind: "url", url: "https://example.com/a" });
    expect(mentionTarget("http://")).toEqual({ kind: "url", url: null });
    expect(mentionTarget("session:fix")).toEqual({ kind: "session", words: "fix" });
    expect(mentionTarget("src/")).toEqual({ kind: "file", folder: "src/" });
    expect(mentionTarget("src/ma")).toEqual({ kind: "file", folder: null });
  });

  it("labels each kind shortly", () => {
    expect(folderLabel("src")).toBe("src/");
    expect(folderLabel("src//")).toBe("src/");
    expect(urlLabel("https://example.com/")).toBe("example.com");
    expect(urlLabel("https://docs.example.com/guide/intro?x=1")).toBe("docs.example.com/guide/intro?x=1");
    expect(urlLabel(`https://example.com/${"a".repeat(80)}`)).toHaveLength(48);
    expect(urlLabel(`https://example.com/${"a".repeat(80)}`).endsWith("…")).toBe(true);
    expect(labelOf({ kind: "session", session_id: "s2" }, "Fix the parser")).toBe("Fix the parser");
    expect(labelOf({ kind: "terminal_selection", text: "one\ntwo\nthree" })).toBe("Terminal selection (3 lines)");
    expect(labelOf({ kind: "terminal_selection", text: "one" })).toBe("Terminal selection (1 line)");
  });

  it("takes the typed mention out with one blank around it", () => {
    expect(removeMention("@src/", { start: 0, end: 5, query: "src/" })).toEqual({ text: "", caret: 0 });
    expect(removeMention("look at @src/ please", { start: 8, end: 13, query: "src/" })).toEqual({ text: "look at please", caret: 8 });
    expect(removeMention("look at @src/", { start: 8, end: 13, query: "src/" })).toEqual({ text: "look at", caret: 7 });
  });

  it("matches sessions by title in any case, never the session itself", () => {
    expect(sessionMatches(SESSIONS, "FIX", "s1").map((s) => s.session_id)).toEqual(["s2", "s4"]);
    expect(sessionMatches(SESSIONS, "", "s1").map((s) => s.session_id)).toEqual(["s2", "s3", "s4"]);
    expect(sessionMatches(SESSIONS, "very", "s1")).toEqual([]);
  });

  it("a selection of blanks attaches nothing; the terminal's padding goes", () => {
    expect(selectionAttachment("  \n \n")).toBeNull();
    expect(selectionAttachment("$ ls   \nsrc  \n\n")).toEqual({ kind: "terminal_selection", text: "$ ls\nsrc" });
  });
});

describe("attaching through the @ menu", () => {
  it("@src/ offers the folder first, files below; choosing it makes a folder chip in place of the typed text", async () => {
    const { live, user, box } = setup({ find_files: (args) => (args.query === "src/" ? [match("src/main.rs", [0, 1, 2, 3])] : []) });
    await user.type(box, "look at @src/");
    const menu = await screen.findByTestId("file-menu");
    const folder = within(menu).getByTestId("attach-folder");
    expect(words(folder)).toBe("Attach folder src/");
    expect(folder.dataset.path).toBe("src/");
    await waitFor(() => expect(within(menu).getAllByTestId("file-item").map((i) => i.dataset.path)).toEqual(["src/main.rs"]));
    const entries = within(menu).getAllByRole("option");
    expect(entries[0]).toBe(folder); // the folder comes first, selected
    expect(folder.getAttribute("aria-selected")).toBe("true");

    await user.keyboard("{Enter}");
    expect(box.value).toBe("look at");
    expect(screen.queryByTestId("file-menu")).toBeNull();
    expect(chipKinds()).toEqual(["folder"]);
    expect(chipLabels()).toEqual(["src/"]);
    expect(live.turns).toHaveLength(0); // Enter picked, it did not send
  });

  it("a file below the folder entry still inserts its path", async () => {
    const { user, box } = setup({ find_files: () => [match("src/main.rs", [0])] });
    await user.type(box, "@src/");
    await waitFor(() => expect(screen.getAllByTestId("file-item")).toHaveLength(1));
    await user.keyboard("{ArrowDown}{Enter}");
    expect(box.value).toBe("@src/main.rs ");
    expect(chips()).toHaveLength(0);
  });

  it("@https://… offers the page (without a file search) and a click makes a url chip", async () => {
    const { live, user, box } = setup({ find_files: () => [match("https.txt")] });
    await user.type(box, "read @https://example.com/a");
    const page = await screen.findByTestId("attach-url");
    expect(words(page)).toBe("Attach page https://example.com/a");
    expect(page.dataset.url).toBe("https://example.com/a");
    await new Promise((r) => setTimeout(r, 120));
    expect(live.called("find_files").map((a) => a.query)).not.toContain("https://example.com/a");
    expect(screen.queryAllByTestId("file-item")).toHaveLength(0);

    await user.pointer({ keys: "[MouseLeft>]", target: page });
    expect(box.value).toBe("read");
    expect(chipKinds()).toEqual(["url"]);
    expect(chipLabels()).toEqual(["example.com/a"]);
  });

  it("a pasted URL stays text: nothing is attached but through @", async () => {
    const { user, box } = setup();
    await user.click(box);
    await user.paste("https://example.com/a");
    expect(box.value).toBe("https://example.com/a");
    expect(chips()).toHaveLength(0);
    expect(screen.queryByTestId("file-menu")).toBeNull();
  });

  it("@session: lists the project's other sessions, the words typed narrow them, and one becomes a chip titled as listed", async () => {
    const { live, user, box } = setup();
    await user.type(box, "@session:");
    await waitFor(() => expect(screen.getAllByTestId("attach-session").map((s) => s.dataset.sessionId)).toEqual(["s2", "s3", "s4"]));
    expect(live.called("list_sessions")[0]).toEqual({ projectPath: "/home/me/projects/nerve-demo", query: null });
    await user.type(box, "fix");
    await waitFor(() => expect(screen.getAllByTestId("attach-session").map((s) => s.dataset.sessionId)).toEqual(["s2", "s4"]));
    expect(words(screen.getAllByTestId("attach-session")[0]!)).toBe("Attach session Fix the parser");

    await user.keyboard("{Enter}");
    expect(box.value).toBe("");
    expect(chipKinds()).toEqual(["session"]);
    expect(chipLabels()).toEqual(["Fix the parser"]);
  });

  it("@session: with no matching session closes the menu, and Enter sends the text as typed", async () => {
    const { live, user, box } = setup();
    await user.type(box, "@session:nothing");
    await waitFor(() => expect(live.called("list_sessions").length).toBeGreaterThan(0));
    await waitFor(() => expect(screen.queryByTestId("file-menu")).toBeNull());
    await user.keyboard("{Enter}");
    await waitFor(() => expect(live.turns.map((t) => t.prompt)).toEqual(["@session:nothing"]));
    expect(live.turns[0]!.attachments).toEqual([]);
  });

  it("removes a chip with its button; the same folder is attached once", async () => {
    const { user, box } = setup();
    await attachFolder(user, box);
    await attachFolder(user, box);
    expect(chipKinds()).toEqual(["folder"]);
    await user.type(box, "@https://example.com{Enter}");
    expect(chipKinds()).toEqual(["folder", "url"]);
    const remove = within(chips()[0]!).getByTestId("attachment-chip-remove");
    expect(remove.getAttribute("aria-label")).toBe("Remove folder src/");
    await user.click(remove);
    expect(chipKinds()).toEqual(["url"]);
  });

  it("shows a label as text, never as HTML", async () => {
    const { user, box } = setup({ list_sessions: () => [sessionSummary("s9", { title: XSS })] });
    await user.type(box, "@session:");
    const entry = await screen.findByTestId("attach-session");
    expect(entry.textContent).toContain(XSS);
    expect(entry.querySelector("img")).toBeNull();
    await user.keyboard("{Enter}");
    expect(chipLabels()).toEqual([XSS]);
    expect(chips()[0]!.querySelector("img")).toBeNull();
  });
});

describe("sending attachments", () => {
  it("sends the attachments with the prompt, then clears the chips", async () => {
    const { live, user, box } = setup();
    await attachFolder(user, box);
    await user.type(box, "@https://example.com/a{Enter}");
    await user.type(box, "@session:parser");
    await screen.findByTestId("attach-session");
    await user.keyboard("{Enter}");
    expect(chipKinds()).toEqual(["folder", "url", "session"]);

    await user.type(box, "compare these{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    const expected: PromptAttachment[] = [
      { kind: "folder", path: "src/" },
      { kind: "url", url: "https://example.com/a" },
      { kind: "session", session_id: "s2" },
    ];
    expect(live.called("send_prompt")[0]).toEqual(expect.objectContaining({ sessionId: "s1", prompt: "compare these", images: [], attachments: expected }));
    expect(chips()).toHaveLength(0);
    expect(box.value).toBe("");
  });

  it("a text-only prompt sends no attachments; attachments may go without text", async () => {
    const { live, user, box } = setup();
    await user.type(box, "hello{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    expect(live.turns[0]!.attachments).toEqual([]);
    live.turns[0]!.finish();
    await waitFor(() => expect(screen.getByTestId("turn-status").textContent?.trim()).toBe("idle"));

    const send = screen.getByTestId("send-button") as HTMLButtonElement;
    await attachFolder(user, box);
    expect(send.disabled).toBe(false);
    await user.click(send);
    await waitFor(() => expect(live.turns).toHaveLength(2));
    expect(live.turns[1]!.prompt).toBe(ATTACHMENT_ONLY_PROMPT);
    expect(live.turns[1]!.attachments).toEqual([{ kind: "folder", path: "src/" }]);
  });

  it("keeps the text and the chips when the engine cannot read an attachment, and says why", async () => {
    const refusal = "A WebFetch deny rule covers example.com: the page cannot be attached.";
    const { live, user, box } = setup({
      send_prompt: () => {
        throw refusal;
      },
    });
    await user.type(box, "@https://example.com/a{Enter}");
    await user.type(box, "summarise{Enter}");
    await waitFor(() => expect(problem()?.textContent).toContain(`Not sent: ${refusal}`));
    expect(box.value).toBe("summarise");
    expect(chipKinds()).toEqual(["url"]);
    expect(chipLabels()).toEqual(["example.com/a"]);
    expect(live.called("send_prompt")).toHaveLength(1);
  });

  it("a queued prompt keeps its attachments and sends them when its turn comes", async () => {
    const { live, user, box } = setup();
    await user.type(box, "one{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    await attachFolder(user, box);
    await user.type(box, "and this folder{Enter}");
    const queued = screen.getByTestId("queued-prompt");
    expect(queued.textContent).toContain("and this folder");
    expect(within(queued).getByTestId("queued-attachments").textContent).toBe("+1 attachment");
    expect(chips()).toHaveLength(0);

    live.turns[0]!.finish();
    await waitFor(() => expect(live.turns).toHaveLength(2));
    expect(live.turns[1]!.prompt).toBe("and this folder");
    expect(live.turns[1]!.attachments).toEqual([{ kind: "folder", path: "src/" }]);
  });

  it("a built-in command does not swallow attachments", async () => {
    const { live, user, box } = setup();
    await attachFolder(user, box);
    await user.type(box, "/compact{Enter}");
    expect(problem()!.textContent).toContain("/compact takes no attachments");
    expect(chips()).toHaveLength(1);
    expect(live.called("compact_session")).toEqual([]);
  });
});

describe("attachments of past prompts", () => {
  const carried: AttachmentView[] = [
    { kind: "folder", label: "src/" },
    { kind: "url", label: "https://example.com/a" },
    { kind: "session", label: "Fix the parser" },
    { kind: "terminal_selection", label: "$ cargo test" },
  ];

  it("a resumed session shows what a prompt carried, by kind and label", () => {
    const session = new SessionStore(sessionInfo({ history: [said("compare these", [], carried), answered("Done.")] }));
    setup({}, session);
    const message = screen.getByTestId("user-message");
    const past = within(message).getAllByTestId("past-attachment");
    expect(past.map((p) => p.dataset.kind)).toEqual(["folder", "url", "session", "terminal_selection"]);
    expect(past.map((p) => words(p))).toEqual(["src/", "https://example.com/a", "Fix the parser", "$ cargo test"]);
    expect(past.every((p) => p.querySelector("svg"))).toBe(true);
    expect(within(message).getByTestId("user-text").textContent).toBe("compare these");
  });

  it("the prompt the engine echoes live shows its attachments; a prompt of only attachments shows too", async () => {
    const { live, user, box } = setup();
    await attachFolder(user, box);
    await user.click(screen.getByTestId("send-button"));
    await waitFor(() => expect(live.turns).toHaveLength(1));
    live.turns[0]!.send(userMessage(ATTACHMENT_ONLY_PROMPT, [], [{ kind: "folder", label: "src/" }]));
    const past = await screen.findByTestId("past-attachment");
    expect(past.dataset.kind).toBe("folder");
    expect(past.textContent?.trim()).toBe("src/");
  });

  it("shows a label as text, never as HTML", () => {
    render(UserAttachments, { attachments: [{ kind: "url", label: XSS }] });
    const past = screen.getByTestId("past-attachment");
    expect(past.textContent?.trim()).toBe(XSS);
    expect(past.querySelector("img")).toBeNull();
  });
});
