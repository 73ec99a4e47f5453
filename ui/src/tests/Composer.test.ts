// The composer: slash commands (a menu, built-ins carried out in the UI, the rest sent as typed)
// and `@` file mentions (a debounced file search, its answers in order), with the prompt box's
// other keys (history, send, Escape aborting) untouched while no menu is open.
import { describe, expect, it, vi } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import type { CompactOutcome } from "../bindings/CompactOutcome";
import type { FileMatch } from "../bindings/FileMatch";
import type { ModelChoice } from "../bindings/ModelChoice";
import type { SlashCommand } from "../bindings/SlashCommand";
import App from "../App.svelte";
import Conversation from "../lib/components/Conversation.svelte";
import PromptBox from "../lib/components/PromptBox.svelte";
import { liveSession, sessionInfo, type Handler, type Live } from "./live";
import { said, userMessage } from "./messages";

const command = (name: string, description: string, argument_hint: string | null, source: SlashCommand["source"]): SlashCommand => ({
  name,
  description,
  argument_hint,
  source,
});

const COMMANDS: SlashCommand[] = [
  command("compact", "Summarise the conversation to free context", "[instructions]", "builtin"),
  command("clear", "Start a new session in this project", null, "builtin"),
  command("rewind", "Go back to before the latest prompt", null, "builtin"),
  command("model", "Use another model for this session", "NAME", "builtin"),
  command("mode", "Change the permission mode", "MODE", "builtin"),
  command("review", "Review the changes", "[path]", "project"),
  command("pr-review", "Review a pull request", "NUMBER", "user"),
];

const match = (path: string, indices: number[]): FileMatch => ({ path, score: 100 - indices.length, indices });

function setup(handlers: Record<string, Handler> = {}, props: { onclear?: () => void } = {}) {
  const live = liveSession(sessionInfo(), { list_commands: () => COMMANDS, ...handlers });
  const user = userEvent.setup();
  render(Conversation, { session: live.session, onclose: vi.fn(), ...props });
  const box = screen.getByTestId("prompt-input") as HTMLTextAreaElement;
  return { live, user, box };
}

const items = (testId: "command-item" | "file-item") => screen.queryAllByTestId(testId);
const names = () => items("command-item").map((i) => i.dataset.name);
const selected = (testId: "command-item" | "file-item") => items(testId).find((i) => i.getAttribute("aria-selected") === "true");
const notices = () => screen.queryAllByTestId("notice").map((n) => n.textContent);
const sent = (live: Live) => live.turns.map((t) => t.prompt);

describe("slash commands", () => {
  it("offers the session's commands as the name is typed: prefix first, then substring, and completes with Tab or Enter", async () => {
    const { live, user, box } = setup();
    await waitFor(() => expect(live.called("list_commands")).toEqual([{ sessionId: "s1" }]));
    await user.type(box, "/");
    expect(names()).toEqual(COMMANDS.map((c) => c.name));
    await user.type(box, "re");
    expect(names()).toEqual(["rewind", "review", "pr-review"]);
    const review = items("command-item")[1]!;
    expect(review.textContent).toContain("/review");
    expect(review.textContent).toContain("[path]");
    expect(review.textContent).toContain("Review the changes");
    expect(review.textContent).toContain("project");
    expect(items("command-item")[0]!.textContent).not.toContain("builtin");
    expect(selected("command-item")!.dataset.name).toBe("rewind");

    await user.keyboard("{ArrowDown}");
    expect(selected("command-item")!.dataset.name).toBe("review");
    await user.keyboard("{ArrowUp}{ArrowUp}");
    expect(selected("command-item")!.dataset.name).toBe("pr-review"); // wraps
    await user.keyboard("{Tab}");
    expect(box.value).toBe("/pr-review ");
    expect(screen.queryByTestId("command-menu")).toBeNull();
    expect(document.activeElement).toBe(box);
    expect(box.selectionStart).toBe("/pr-review ".length);

    await user.clear(box);
    await user.type(box, "/rev");
    expect(names()).toEqual(["review", "pr-review"]);
    await user.keyboard("{ArrowDown}{Enter}");
    expect(box.value).toBe("/pr-review ");
    expect(live.turns).toHaveLength(0);
  });

  it("labels where each command comes from: none for a built-in, an MCP server's prompt as one", async () => {
    const prompt = command("mcp__docs__summarize", "Summarise a page of the docs", "URL", "mcp");
    const { live, user, box } = setup({ list_commands: () => [...COMMANDS, prompt] });
    await waitFor(() => expect(live.called("list_commands")).toEqual([{ sessionId: "s1" }]));
    await user.type(box, "/");
    const source = (name: string) => {
      const item = items("command-item").find((i) => i.dataset.name === name);
      if (!item) throw new Error(`no command ${name}`);
      return within(item).queryByTestId("command-source")?.textContent ?? null;
    };
    expect(source("compact")).toBeNull();
    expect(source("review")).toBe("project");
    expect(source("pr-review")).toBe("user");
    expect(source("mcp__docs__summarize")).toBe("MCP prompt");

    await user.type(box, "summ");
    expect(names()).toEqual(["mcp__docs__summarize"]);
    expect(items("command-item")[0]!.textContent).toContain("Summarise a page of the docs");
    expect(items("command-item")[0]!.textContent).toContain("URL");
    await user.keyboard("{Tab}");
    expect(box.value).toBe("/mcp__docs__summarize ");
  });

  it("sends a custom command as typed (the engine expands it), and an unknown /word as text", async () => {
    const { live, user, box } = setup();
    await user.type(box, "/rev{Tab}src/a.rs{Enter}");
    await waitFor(() => expect(sent(live)).toEqual(["/review src/a.rs"]));
    live.turns[0]!.finish();
    await waitFor(() => expect(screen.getByTestId("turn-status").textContent?.trim()).toBe("idle"));

    await user.type(box, "/usr/bin/ls fails{Enter}");
    expect(screen.queryByTestId("command-menu")).toBeNull();
    await waitFor(() => expect(sent(live)).toEqual(["/review src/a.rs", "/usr/bin/ls fails"]));
    // The list is asked for again once a turn has ended (a turn may have added commands).
    await waitFor(() => expect(live.called("list_commands").length).toBeGreaterThanOrEqual(2));
  });

  it("runs a name typed in full on Enter, completes a partial one", async () => {
    const onclear = vi.fn();
    const { user, box } = setup({}, { onclear });
    await user.type(box, "/cle{Enter}");
    expect(box.value).toBe("/clear ");
    expect(onclear).not.toHaveBeenCalled();
    await user.clear(box);
    await user.type(box, "/clear{Enter}");
    expect(onclear).toHaveBeenCalledTimes(1);
    expect(box.value).toBe("");
  });

  it("/mode, /model and /compact call the engine with their arguments instead of sending a prompt", async () => {
    const { live, user, box } = setup({
      set_permission_mode: (args) => args.mode,
      set_model: (args): ModelChoice => ({ model: String(args.model), effort: "off", at_next_prompt: false }),
      compact_session: (): CompactOutcome => ({ history: [said("Summary of the conversation")], past_calls: [], prompts: [] }),
    });
    await user.type(box, "/mode plan{Enter}");
    await waitFor(() => expect(live.called("set_permission_mode")).toEqual([{ sessionId: "s1", mode: "plan" }]));
    await waitFor(() => expect((screen.getByTestId("mode-switcher") as HTMLSelectElement).value).toBe("plan"));
    expect(notices()).toContain("Mode: plan");

    await user.type(box, "/mode acceptedits{Enter}");
    await waitFor(() => expect(live.called("set_permission_mode").at(-1)).toEqual({ sessionId: "s1", mode: "acceptEdits" }));

    await user.type(box, "/model x{Enter}");
    await waitFor(() => expect(live.called("set_model")).toEqual([{ sessionId: "s1", model: "x" }]));
    await waitFor(() => expect(notices()).toContain("Model: x for this session"));
    expect(screen.getByTestId("model-picker-name").textContent).toBe("x");

    await user.type(box, "/compact be brief{Enter}");
    await waitFor(() => expect(live.called("compact_session")).toEqual([{ sessionId: "s1", instructions: "be brief" }]));
    await waitFor(() => expect(notices().at(-1)).toContain("Conversation compacted"));
    await user.type(box, "/compact{Enter}");
    await waitFor(() => expect(live.called("compact_session").at(-1)).toEqual({ sessionId: "s1", instructions: null }));

    expect(live.turns).toHaveLength(0);
    // They are recalled with Up like any prompt.
    await user.keyboard("{ArrowUp}");
    expect(box.value).toBe("/compact");
  });

  it("says which modes exist for an unknown one, and shows the engine's refusal of a compaction", async () => {
    const { live, user, box } = setup({
      compact_session: () => {
        throw "a turn is running: compact once it has ended";
      },
    });
    await user.type(box, "/mode yolo{Enter}");
    await waitFor(() => expect(notices().at(-1)).toBe('Unknown mode "yolo". The modes are: default, acceptEdits, plan, bypassPermissions, dontAsk, auto.'));
    expect(live.called("set_permission_mode")).toEqual([]);

    await user.type(box, "/compact{Enter}");
    await waitFor(() => expect(notices().at(-1)).toBe("Could not compact the conversation: a turn is running: compact once it has ended"));
    expect(live.turns).toHaveLength(0);
  });

  it("/rewind opens the Rewind dialog for the latest prompt", async () => {
    const { live, user, box } = setup({ plan_rewind: () => new Promise(() => {}) });
    await user.type(box, "/rewind{Enter}");
    expect(screen.queryByTestId("rewind-dialog")).toBeNull();
    expect(notices().at(-1)).toContain("Nothing to rewind yet");

    for (const [turn, text] of [[1, "first"], [2, "second"]] as const) {
      await user.type(box, `${text}{Enter}`);
      await waitFor(() => expect(live.turns).toHaveLength(turn));
      const t = live.turns[turn - 1]!;
      t.send({ type: "turn_started", turn });
      t.send(userMessage(text));
      t.send({ type: "turn_ended", reason: "end_turn" });
      t.finish();
      await waitFor(() => expect(screen.getByTestId("turn-status").textContent?.trim()).toBe("idle"));
    }
    await user.type(box, "/rewind{Enter}");
    await screen.findByTestId("rewind-dialog");
    await waitFor(() => expect(live.called("plan_rewind")).toEqual([{ sessionId: "s1", toTurn: 2 }]));
  });

  it("Esc closes the menu without aborting the turn; the next Esc aborts", async () => {
    const { live, user, box } = setup();
    await user.type(box, "one{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    await user.type(box, "/co");
    expect(names()).toEqual(["compact"]);
    await user.keyboard("{Escape}");
    expect(screen.queryByTestId("command-menu")).toBeNull();
    expect(box.value).toBe("/co");
    expect(live.called("abort_turn")).toEqual([]);
    // Typing opens it again.
    await user.type(box, "m");
    expect(names()).toEqual(["compact"]);
    await user.keyboard("{Escape}{Escape}");
    expect(live.called("abort_turn")).toEqual([{ sessionId: "s1" }]);
  });

  it("leaves Up/Down to the prompt history while no menu is open, and takes them while one is", async () => {
    const { live, user, box } = setup();
    await user.type(box, "earlier{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    live.turns[0]!.finish();
    await waitFor(() => expect(screen.getByTestId("turn-status").textContent?.trim()).toBe("idle"));
    await user.type(box, "/m");
    await user.keyboard("{ArrowUp}");
    expect(box.value).toBe("/m");
    expect(selected("command-item")!.dataset.name).toBe("compact"); // wrapped to the last
    await user.keyboard("{Escape}{ArrowUp}");
    expect(box.value).toBe("earlier");
  });

  it("does not open the menu on a recalled command, so Down keeps going through the history", async () => {
    const user = userEvent.setup();
    render(PromptBox, { running: false, queue: [], history: ["one", "/clear"], commands: COMMANDS, onsubmit: vi.fn(), onremove: vi.fn(), onabort: vi.fn() });
    const box = screen.getByTestId("prompt-input") as HTMLTextAreaElement;
    await user.click(box);
    await user.keyboard("{ArrowUp}{ArrowUp}{ArrowDown}");
    expect(box.value).toBe("/clear");
    expect(screen.queryByTestId("command-menu")).toBeNull();
    await user.keyboard("{ArrowDown}");
    expect(box.value).toBe("");
    await user.type(box, "/cl");
    expect(names()).toEqual(["clear"]);
  });
});

describe("@ file mentions", () => {
  it("searches once typing pauses, marks the matched characters, and Enter inserts the path without sending", async () => {
    const { live, user, box } = setup({
      find_files: (args) => (args.query === "gre" ? [match("greeting.txt", [0, 1, 2]), match("src/grep.rs", [4, 5, 6])] : []),
    });
    await user.type(box, "say hi to @gre");
    const menu = await screen.findByTestId("file-menu");
    await waitFor(() => expect(within(menu).getAllByTestId("file-item").map((i) => i.dataset.path)).toEqual(["greeting.txt", "src/grep.rs"]));
    expect(live.called("find_files")).toEqual([{ sessionId: "s1", query: "gre", limit: 20 }]); // one search, not one per key
    expect([...items("file-item")[0]!.querySelectorAll("mark")].map((m) => m.textContent)).toEqual(["gre"]);
    expect(items("file-item")[1]!.textContent).toBe("src/grep.rs");

    await user.keyboard("{Enter}");
    expect(box.value).toBe("say hi to @greeting.txt ");
    expect(screen.queryByTestId("file-menu")).toBeNull();
    expect(live.turns).toHaveLength(0);

    await user.type(box, "and @gre");
    await waitFor(() => expect(items("file-item")).toHaveLength(2));
    await user.keyboard("{ArrowDown}{Tab}");
    expect(box.value).toBe("say hi to @greeting.txt and @src/grep.rs ");
    await user.keyboard("{Enter}");
    await waitFor(() => expect(sent(live)).toEqual(["say hi to @greeting.txt and @src/grep.rs"]));
  });

  it("quotes a path with spaces, and a click picks too", async () => {
    const { user, box } = setup({ find_files: () => [match("docs/my file.txt", [5, 6])] });
    await user.type(box, "@my");
    await waitFor(() => expect(items("file-item")).toHaveLength(1));
    await user.pointer({ keys: "[MouseLeft>]", target: items("file-item")[0]! });
    expect(box.value).toBe('@"docs/my file.txt" ');
  });

  it("never sends on Enter while an answer is due; an empty answer closes the menu", async () => {
    let answer: (m: FileMatch[]) => void = () => {};
    const { live, user, box } = setup({ find_files: () => new Promise<FileMatch[]>((resolve) => (answer = resolve)) });
    await user.type(box, "fix @nothing{Enter}");
    expect(screen.getByTestId("file-menu").textContent).toContain("Searching");
    expect(box.value).toBe("fix @nothing");
    await waitFor(() => expect(live.called("find_files")).toHaveLength(1));
    answer([]);
    await waitFor(() => expect(screen.queryByTestId("file-menu")).toBeNull());
    await user.keyboard("{Enter}");
    await waitFor(() => expect(sent(live)).toEqual(["fix @nothing"]));
  });

  it("ignores an answer to an earlier query that arrives late", async () => {
    const answers: { query: string; resolve: (m: FileMatch[]) => void }[] = [];
    const { live, user, box } = setup({
      find_files: (args) => new Promise<FileMatch[]>((resolve) => answers.push({ query: String(args.query), resolve })),
    });
    await user.type(box, "@g");
    await waitFor(() => expect(answers.map((a) => a.query)).toEqual(["g"]));
    await user.type(box, "re");
    await waitFor(() => expect(answers.map((a) => a.query)).toEqual(["g", "gre"]));
    answers[1]!.resolve([match("greeting.txt", [0, 1, 2])]);
    await waitFor(() => expect(items("file-item").map((i) => i.dataset.path)).toEqual(["greeting.txt"]));
    answers[0]!.resolve([match("go.mod", [0]), match("git.txt", [0])]);
    await new Promise((r) => setTimeout(r, 120));
    expect(items("file-item").map((i) => i.dataset.path)).toEqual(["greeting.txt"]);
    await user.keyboard("{Enter}");
    expect(box.value).toBe("@greeting.txt ");
    expect(live.turns).toHaveLength(0);
  });

  it("Esc closes the file menu without aborting the running turn", async () => {
    const { live, user, box } = setup({ find_files: () => [match("greeting.txt", [0])] });
    await user.type(box, "one{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    await user.type(box, "@g");
    await waitFor(() => expect(items("file-item")).toHaveLength(1));
    await user.keyboard("{Escape}");
    expect(screen.queryByTestId("file-menu")).toBeNull();
    expect(live.called("abort_turn")).toEqual([]);
    expect(screen.getByTestId("turn-status").textContent?.trim()).toBe("running");
  });
});

describe("/clear", () => {
  it("starts a new session in the same project and ends the old one", async () => {
    let started = 0;
    const live = liveSession(sessionInfo(), {
      list_commands: () => COMMANDS,
      start_session: () => sessionInfo({ session_id: `s${++started}` }),
    });
    const user = userEvent.setup();
    render(App);
    await user.type(await screen.findByTestId("project-path-input"), "/home/me/projects/nerve-demo");
    await user.click(screen.getByTestId("project-path-open"));
    const box = (await screen.findByTestId("prompt-input")) as HTMLTextAreaElement;
    await user.type(box, "hello{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    live.turns[0]!.finish();
    await waitFor(() => expect(screen.getByTestId("turn-status").textContent?.trim()).toBe("idle"));

    await user.type(box, "/clear{Enter}");
    await waitFor(() => expect(live.called("end_session")).toEqual([{ sessionId: "s1" }]));
    expect(live.called("start_session")).toEqual([
      { projectPath: "/home/me/projects/nerve-demo", resume: null },
      { projectPath: "/home/me/projects/nerve-demo", resume: null },
    ]);
    expect(screen.queryAllByTestId("user-message")).toHaveLength(0);
    await waitFor(() => expect(live.called("list_commands").at(-1)).toEqual({ sessionId: "s2" }));
  });
});
