import { beforeEach, describe, expect, it } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import { mockIPC, mockWindows } from "@tauri-apps/api/mocks";
import type { Event } from "../bindings/Event";
import type { Progress } from "../bindings/Progress";
import MessageList from "../lib/components/MessageList.svelte";
import { initialState, reduce } from "../lib/conversation/reducer";
import { completed, queued, request } from "./fixtures";

const stateOf = (events: Event[]) => events.reduce((s, e) => reduce(s, e, Date.now()), initialState());
const card = (id: string) => document.querySelector(`[data-tool-use-id="${id}"]`) as HTMLElement;
/** A result the engine wrote (a denial, an interruption): the model gets the message inside
 *  `<tool_use_error>`, the user reads the event's `error`. The cards must never show the tags. */
const engineError = (id: string, message: string, extra: Parameters<typeof completed>[1] = {}) =>
  completed(id, { is_error: true, error: message, content: [{ type: "text", text: `<tool_use_error>${message}</tool_use_error>` }], ...extra });

describe("tool cards and batches", () => {
  beforeEach(() => mockWindows("main"));

  it("groups a concurrent batch with its progress and shows serial calls as waiting", () => {
    const conversation = stateOf([
      queued("a", 1, true, "Read", "Read src/main.rs · lines 1–200"),
      queued("b", 1, true),
      queued("c", 1, true),
      { type: "tool_started", tool_use_id: "a" },
      { type: "tool_started", tool_use_id: "b" },
      completed("a"),
      completed("b", { is_error: true, content: [{ type: "text", text: "No such file" }] }),
      queued("d", 2, false, "Edit"),
    ]);
    render(MessageList, { conversation, sessionId: "s1" });
    const groups = screen.getAllByTestId("batch");
    expect(groups.map((g) => [g.dataset.concurrent, g.dataset.size])).toEqual([["true", "3"], ["false", "1"]]);
    expect(groups[0]!.textContent).toContain("parallel · 2 of 3 done");
    expect(within(card("a")).getByTestId("tool-summary").textContent).toBe("Read src/main.rs · lines 1–200");
    expect([card("a"), card("b"), card("c"), card("d")].map((c) => c.dataset.status)).toEqual(["completed", "error", "queued", "queued"]);
    expect(card("b").textContent).toContain("No such file");
    expect(within(card("c")).getByTestId("tool-status").textContent).toBe("queued");
    expect(within(card("d")).getByTestId("tool-status").textContent).toBe("waiting");
    expect(within(card("a")).getByTestId("tool-elapsed").textContent).toBe("12ms");
  });

  it("shows a failed call's error as the engine wrote it for the user, else the first line the tool wrote", () => {
    const conversation = stateOf([
      queued("v", 1, false, "Edit"),
      queued("t", 2, false, "Bash"),
      { type: "tool_started", tool_use_id: "v" },
      engineError("v", "String to replace not found in file.\nString: let y = 3;"),
      { type: "tool_started", tool_use_id: "t" },
      completed("t", { is_error: true, content: [{ type: "text", text: "\nerror[E0425]: cannot find value `y`\n  --> src/main.rs:2:5" }] }),
    ]);
    render(MessageList, { conversation, sessionId: "s1" });
    expect(conversation.tools.get("v")!.error).toBe("String to replace not found in file.\nString: let y = 3;");
    expect(card("v").dataset.status).toBe("error");
    expect(card("v").querySelector(".problem.error")?.textContent).toBe("String to replace not found in file.\nString: let y = 3;");
    expect(card("v").textContent).not.toContain("tool_use_error");
    expect(card("t").querySelector(".problem.error")?.textContent).toBe("error[E0425]: cannot find value `y`");
  });

  it("marks a call that may destroy data", () => {
    const conversation = stateOf([queued("rm", 1, false, "Bash", "Bash rm -rf build", true), queued("ls", 2, true, "Bash", "Bash ls")]);
    render(MessageList, { conversation, sessionId: "s1" });
    expect(within(card("rm")).getByTestId("tool-destructive").textContent).toBe("destructive");
    expect(within(card("ls")).queryByTestId("tool-destructive")).toBeNull();
  });

  it("says on each Bash card whether it runs in the sandbox, as the engine decided", () => {
    const conversation = stateOf([
      { ...queued("in", 1, false, "Bash", "Bash cargo test"), sandbox: { state: "sandboxed", network: false } } as Event,
      {
        ...queued("out", 2, false, "Bash", "Bash curl example.com"),
        sandbox: { state: "unsandboxed", reason: "the model asked to run this command outside the sandbox", needs_approval: true },
      } as Event,
      queued("read", 3, true, "Read", "Read a.txt"),
    ]);
    render(MessageList, { conversation, sessionId: "s1" });
    const inside = within(card("in")).getByTestId("sandbox-badge");
    expect([inside.textContent, inside.dataset.sandboxed]).toEqual(["sandboxed", "true"]);
    expect(inside.title).toContain("no network");
    const outside = within(card("out")).getByTestId("sandbox-badge");
    expect([outside.textContent, outside.dataset.sandboxed]).toEqual(["not sandboxed", "false"]);
    expect(outside.title).toBe("Runs without the sandbox: the model asked to run this command outside the sandbox.");
    expect(within(card("read")).queryByTestId("sandbox-badge")).toBeNull();
  });

  it("marks a call whose permission request waits for the user, until it is answered", () => {
    const asking = stateOf([
      queued("x", 1, false, "Bash"),
      { type: "tool_started", tool_use_id: "x" },
      { type: "permission_requested", request: request({ id: "r1", tool_name: "Bash", tool_use_id: "x" }) },
    ]);
    const { unmount } = render(MessageList, { conversation: asking, sessionId: "s1" });
    const chip = within(card("x")).getByTestId("tool-status");
    expect(chip.textContent).toBe("needs approval");
    expect(chip.classList.contains("awaiting")).toBe(true);
    unmount();

    const answered = reduce(asking, completed("x"), Date.now());
    render(MessageList, { conversation: answered, sessionId: "s1" });
    expect(within(card("x")).getByTestId("tool-status").textContent).toBe("completed");
  });

  it("shows a call stopped by an abort as cancelled, not as a failure", () => {
    const conversation = stateOf([
      queued("s", 1, false, "Bash"),
      { type: "tool_started", tool_use_id: "s" },
      engineError("s", "Interrupted by the user: the tool call did not run to completion.", { cancelled: true }),
    ]);
    render(MessageList, { conversation, sessionId: "s1" });
    expect(card("s").dataset.status).toBe("cancelled");
    expect(within(card("s")).getByTestId("tool-status").textContent).toBe("cancelled");
    expect(card("s").querySelector(".problem")?.textContent).toBe("Interrupted by the user: the tool call did not run to completion.");
    expect(card("s").textContent).not.toContain("tool_use_error");
    expect(card("s").querySelector(".problem.error")).toBeNull();
  });

  it("shows how far a running Grep or Glob has searched, and drops it once the result is in", () => {
    const search = (files_searched: number, matches: number): Progress => ({ kind: "search", files_searched, matches });
    const events: Event[] = [
      queued("g", 7, true, "Grep", "Grep \"needle\""),
      queued("f", 7, true, "Glob", "Glob **/*.rs"),
      { type: "tool_started", tool_use_id: "g" },
      { type: "tool_started", tool_use_id: "f" },
      { type: "tool_progress", tool_use_id: "g", progress: search(400, 12) },
      { type: "tool_progress", tool_use_id: "g", progress: search(1200, 35) },
      { type: "tool_progress", tool_use_id: "f", progress: search(1, 1) },
    ];
    const running = stateOf(events);
    const { unmount } = render(MessageList, { conversation: running, sessionId: "s1" });
    expect(within(card("g")).getByTestId("tool-search-progress").textContent).toBe("1,200 files searched, 35 matches");
    expect(within(card("f")).getByTestId("tool-search-progress").textContent).toBe("1 file searched, 1 match");
    unmount();

    render(MessageList, { conversation: reduce(running, completed("g"), Date.now()), sessionId: "s1" });
    expect(within(card("g")).queryByTestId("tool-search-progress")).toBeNull();
    expect(within(card("f")).getByTestId("tool-search-progress").textContent).toBe("1 file searched, 1 match");
  });

  it("shows the tail of live output while executing and the denial reason after", () => {
    const lines = Array.from({ length: 30 }, (_, i) => `out ${i}`).join("\n");
    const running = stateOf([
      queued("x", 5, false, "Bash"),
      { type: "tool_started", tool_use_id: "x" },
      { type: "tool_progress", tool_use_id: "x", progress: { kind: "output", text: lines } } as Event,
    ]);
    const { unmount } = render(MessageList, { conversation: running, sessionId: "s1" });
    const progress = screen.getByTestId("tool-progress").textContent!;
    expect(progress.split("\n")).toHaveLength(20);
    expect(progress).toContain("out 29");
    expect(progress).not.toContain("out 9\n");
    unmount();

    const denied = reduce(running, engineError("x", "User denied: too risky", { denied: true }), 0);
    render(MessageList, { conversation: denied, sessionId: "s1" });
    expect(card("x").dataset.status).toBe("denied");
    expect(card("x").textContent).toContain("Denied: User denied: too risky");
    expect(card("x").textContent).not.toContain("tool_use_error");
    expect(screen.queryByTestId("tool-progress")).toBeNull();
  });

  it("expands results: text, allowed images as data URLs, other image types refused", async () => {
    const user = userEvent.setup();
    const conversation = stateOf([
      queued("i", 1, false, "Read"),
      completed("i", {
        content: [
          { type: "text", text: "an image:" },
          { type: "image", media_type: "image/png", data: "iVBORw0KGgo=" },
          { type: "image", media_type: "image/svg+xml", data: "PHN2Zz4=" },
        ],
      }),
    ]);
    render(MessageList, { conversation, sessionId: "s1" });
    expect(screen.queryByTestId("tool-result")).toBeNull();
    await user.click(screen.getByTestId("tool-expand"));
    const result = screen.getByTestId("tool-result");
    const imgs = result.querySelectorAll("img");
    expect(imgs).toHaveLength(1);
    expect(imgs[0]!.getAttribute("src")).toBe("data:image/png;base64,iVBORw0KGgo=");
    expect(result.textContent).toContain("unsupported type image/svg+xml");
  });

  it("shows a persisted output badge and loads the file in chunks", async () => {
    const reads: unknown[] = [];
    mockIPC((cmd, args) => {
      if (cmd === "read_persisted_output") {
        reads.push(args);
        return { text: "line 1\nline 2", offset: 0, next_offset: 13, total_bytes: 13 };
      }
      return null;
    });
    const user = userEvent.setup();
    const conversation = stateOf([
      queued("p", 1, false, "Bash"),
      completed("p", { persisted_path: "/home/u/.nerve/out/p.txt", persisted_bytes: 13 }),
    ]);
    render(MessageList, { conversation, sessionId: "s1" });
    const badge = screen.getByTestId("persisted-badge");
    expect(badge.textContent).toContain("/home/u/.nerve/out/p.txt");
    expect(badge.textContent).toContain("13 B");
    await user.click(screen.getByTestId("persisted-load"));
    await waitFor(() => expect(screen.getByTestId("persisted-text").textContent).toContain("line 2"));
    expect(reads).toEqual([{ sessionId: "s1", path: "/home/u/.nerve/out/p.txt", offset: 0, len: 256 * 1024 }]);
    expect(screen.queryByTestId("persisted-load")).toBeNull(); // everything is loaded
  });

  it("offers to allow, in one click, each write and host the sandbox refused a failed command", async () => {
    const allowed: unknown[] = [];
    mockIPC((cmd, args) => {
      if (cmd === "allow_sandbox_refusal") {
        allowed.push(args);
        return "/work/p/.nerve/settings.local.json";
      }
      return null;
    });
    const user = userEvent.setup();
    const refused = (refusal: Extract<Progress, { kind: "sandbox_refused" }>["refusal"]): Event => ({
      type: "tool_progress",
      tool_use_id: "s",
      progress: { kind: "sandbox_refused", refusal },
    });
    const conversation = stateOf([
      queued("s", 1, false, "Bash", "pip install requests"),
      { type: "tool_started", tool_use_id: "s" },
      refused({ kind: "network", host: "pypi.org", port: 443 }),
      refused({ kind: "write", path: "/home/u/.local/lib", setting: "~/.local/lib" }),
      completed("s", { is_error: true, content: [{ type: "text", text: "ERROR: could not install" }] }),
    ]);
    render(MessageList, { conversation, sessionId: "s1" });
    const rows = within(card("s")).getAllByTestId("sandbox-refusal");
    expect(rows.map((r) => [r.dataset.kind, r.querySelector(".text")?.textContent, r.querySelector("button")?.textContent])).toEqual([
      ["network", "The sandbox refused connecting to pypi.org:443.", "Allow pypi.org for this project"],
      ["write", "The sandbox refused writing /home/u/.local/lib.", "Allow writing ~/.local/lib for this project"],
    ]);
    await user.click(within(rows[1]!).getByTestId("sandbox-refusal-allow"));
    await waitFor(() =>
      expect(within(rows[1]!).getByTestId("sandbox-refusal-allowed").textContent).toBe(
        "Allowed for this project (saved in /work/p/.nerve/settings.local.json); run the command again.",
      ),
    );
    expect(allowed).toEqual([{ sessionId: "s1", refusal: { kind: "write", path: "/home/u/.local/lib", setting: "~/.local/lib" } }]);
    // The other offer stays until it is used.
    expect(within(rows[0]!).getByTestId("sandbox-refusal-allow")).toBeTruthy();
  });

  it("shows no offer on a card whose command the sandbox refused nothing", () => {
    const conversation = stateOf([queued("b", 1, false, "Bash"), completed("b")]);
    render(MessageList, { conversation, sessionId: "s1" });
    expect(within(card("b")).queryByTestId("sandbox-refusals")).toBeNull();
  });

  it("shortens a long output path in the middle, keeping the file name, with the whole path on hover", () => {
    const long = `/home/someone/.local/share/nerve/projects/-home-someone-src-a-very-long-project-name/${"d".repeat(36)}/tool-results/bash-toolu_01.log`;
    const conversation = stateOf([queued("p", 1, false, "Bash"), completed("p", { persisted_path: long, persisted_bytes: 2048 })]);
    render(MessageList, { conversation, sessionId: "s1" });
    const badge = screen.getByTestId("persisted-badge");
    expect(badge.getAttribute("title")).toBe(long);
    const shown = badge.querySelector(".path")?.textContent ?? "";
    expect(shown.length).toBe(72);
    expect(shown.startsWith("/home/someone/")).toBe(true);
    expect(shown.endsWith("bash-toolu_01.log")).toBe(true);
    expect(screen.getByTestId("copy-persisted-path")).toBeTruthy();
  });

  it("asks for the next chunk at the byte offset where the last one ended", async () => {
    const offsets: number[] = [];
    mockIPC((cmd, args) => {
      if (cmd !== "read_persisted_output") return null;
      const { offset } = args as { offset: number };
      offsets.push(offset);
      // The first chunk ends 2 bytes early, before a character the chunk size would have split.
      return { text: `chunk@${offset}\n`, offset, next_offset: offset + 256 * 1024 - 2, total_bytes: 300 * 1024 };
    });
    const user = userEvent.setup();
    const conversation = stateOf([queued("q", 1, false, "Bash"), completed("q", { persisted_path: "/o/q.txt" })]);
    render(MessageList, { conversation, sessionId: "s1" });
    await user.click(screen.getByTestId("persisted-load"));
    await waitFor(() => expect(screen.getByTestId("persisted-load").textContent?.trim()).toBe("Load more"));
    expect(screen.getByTestId("persisted-badge").textContent).toContain("300.0 KB");
    await user.click(screen.getByTestId("persisted-load"));
    await waitFor(() => expect(screen.queryByTestId("persisted-load")).toBeNull());
    expect(offsets).toEqual([0, 256 * 1024 - 2]);
    expect(screen.getByTestId("persisted-text").textContent).toContain(`chunk@${256 * 1024 - 2}`);
  });
});
