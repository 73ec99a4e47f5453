// Memory (instruction) files: Settings → Memory lists and edits them, `/memory` opens it, and a
// prompt starting with `#` adds a line to one instead of going to the model.
import { describe, expect, it, vi } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import type { MemoryFileView } from "../bindings/MemoryFileView";
import App from "../App.svelte";
import Conversation from "../lib/components/Conversation.svelte";
import SettingsPanel from "../lib/components/SettingsPanel.svelte";
import { memoryLine, pickOrder } from "../lib/memory";
import { appState, liveSession, sessionInfo, type Handler } from "./live";
import { mockSettings, PROJECT } from "./settingsFixtures";

const USER_MEMORY = "/home/me/.config/nerve/NERVE.md";

function files(project: string): MemoryFileView[] {
  return [
    { path: USER_MEMORY, kind: "user", exists: false, imported_by: null },
    { path: `${project}/CLAUDE.md`, kind: "project", exists: true, imported_by: null },
    { path: `${project}/NERVE.md`, kind: "project", exists: true, imported_by: null },
    { path: `${project}/docs/style.md`, kind: "import", exists: true, imported_by: `${project}/NERVE.md` },
  ];
}

const row = (path: string) => {
  const found = screen.getAllByTestId("memory-file").find((f) => f.dataset.path === path);
  if (!found) throw new Error(`no memory file ${path}`);
  return found;
};

describe("Settings → Memory", () => {
  it("lists the files the model reads with their kinds, and says which are not created yet", async () => {
    const ipc = mockSettings({ memory_files: () => files(PROJECT) });
    render(SettingsPanel, { app: appState(), onchanged: vi.fn(), onclose: vi.fn(), projectPath: PROJECT, sessionId: null });
    const section = screen.getByTestId("settings-memory");
    const rows = await within(section).findAllByTestId("memory-file");
    expect(ipc.called("memory_files")).toEqual([{ projectPath: PROJECT }]);
    expect(rows.map((r) => [r.dataset.path, r.dataset.kind])).toEqual(files(PROJECT).map((f) => [f.path, f.kind]));
    expect(row(USER_MEMORY).textContent).toContain("Yours, every project");
    expect(row(USER_MEMORY).textContent).toContain("not created yet");
    expect(row(`${PROJECT}/NERVE.md`).textContent).toContain("Project");
    expect(row(`${PROJECT}/NERVE.md`).textContent).not.toContain("not created yet");
    expect(row(`${PROJECT}/docs/style.md`).textContent).toContain("Imported by NERVE.md");
    expect(screen.getByTestId("settings-nav-memory")).toBeTruthy();
  });

  it("edits a file and saves it, reverts, and asks before dropping unsaved changes", async () => {
    const nerve = `${PROJECT}/NERVE.md`;
    const ipc = mockSettings({
      memory_files: () => files(PROJECT),
      read_memory_file: (args) => (args.path === nerve ? "- Use tabs\n" : ""),
      write_memory_file: () => null,
    });
    const user = userEvent.setup();
    render(SettingsPanel, { app: appState(), onchanged: vi.fn(), onclose: vi.fn(), projectPath: PROJECT, sessionId: null });
    await screen.findAllByTestId("memory-file");
    await user.click(row(nerve));
    const text = screen.getByTestId("memory-editor-text") as HTMLTextAreaElement;
    await waitFor(() => expect(text.value).toBe("- Use tabs\n"));
    expect(ipc.called("read_memory_file")).toEqual([{ projectPath: PROJECT, path: nerve }]);

    await user.type(text, "- Run cargo test");
    await user.click(screen.getByTestId("memory-editor-revert"));
    expect(text.value).toBe("- Use tabs\n");

    await user.type(text, "- Run cargo test");
    // Another file while this one has unsaved changes: asked first, and kept on "Keep editing".
    await user.click(row(USER_MEMORY));
    await user.click(screen.getByTestId("memory-keep"));
    expect(screen.getByTestId("memory-editor").dataset.path).toBe(nerve);
    expect(text.value).toBe("- Use tabs\n- Run cargo test");

    await user.click(screen.getByTestId("memory-editor-save"));
    await waitFor(() =>
      expect(ipc.called("write_memory_file")).toEqual([{ projectPath: PROJECT, path: nerve, text: "- Use tabs\n- Run cargo test" }]),
    );
    expect((await screen.findByTestId("memory-written")).textContent).toBe(`Saved to ${nerve}`);
    // Saved: switching needs no confirmation.
    await user.click(row(USER_MEMORY));
    expect(screen.queryByTestId("memory-discard-confirm")).toBeNull();
    await waitFor(() => expect(screen.getByTestId("memory-editor").dataset.path).toBe(USER_MEMORY));
    expect((screen.getByTestId("memory-editor-text") as HTMLTextAreaElement).value).toBe("");
  });
});

describe("/memory", () => {
  it("opens Settings at the memory files", async () => {
    const project = "/home/me/projects/nerve-demo";
    const live = liveSession(sessionInfo(), { list_commands: () => [], memory_files: () => files(project) });
    const user = userEvent.setup();
    render(App);
    await user.type(await screen.findByTestId("project-path-input"), project);
    await user.click(screen.getByTestId("project-path-open"));
    const box = (await screen.findByTestId("prompt-input")) as HTMLTextAreaElement;
    await user.type(box, "/memory{Enter}");
    await screen.findByTestId("settings-panel");
    expect(screen.getByTestId("settings-nav-memory").getAttribute("aria-current")).toBe("true");
    await waitFor(() => expect(live.called("memory_files")).toEqual([{ projectPath: project }]));
    expect(live.called("send_prompt")).toHaveLength(0);
  });
});

describe("# in the prompt box", () => {
  const project = sessionInfo().project_path;

  function setup(handlers: Record<string, Handler> = {}) {
    const live = liveSession(sessionInfo(), {
      list_commands: () => [],
      memory_files: () => files(project),
      append_memory_line: () => null,
      ...handlers,
    });
    const user = userEvent.setup();
    render(Conversation, { session: live.session, onclose: vi.fn() });
    const box = screen.getByTestId("prompt-input") as HTMLTextAreaElement;
    return { live, user, box };
  }

  it("offers the memory files, the project's NERVE.md first and chosen, and adds the line to it", async () => {
    const { live, user, box } = setup();
    await user.type(box, "# Keep commits small{Enter}");
    const pick = await screen.findByTestId("memory-pick");
    await waitFor(() => expect(within(pick).getAllByTestId("memory-pick-option")).toHaveLength(4));
    const options = within(pick).getAllByTestId("memory-pick-option");
    expect(options.map((o) => o.dataset.path)).toEqual([`${project}/NERVE.md`, USER_MEMORY, `${project}/CLAUDE.md`, `${project}/docs/style.md`]);
    expect((options[0]!.querySelector("input") as HTMLInputElement).checked).toBe(true);
    expect(box.value).toBe("");

    await user.click(screen.getByTestId("memory-pick-add"));
    await waitFor(() =>
      expect(live.called("append_memory_line")).toEqual([{ projectPath: project, path: `${project}/NERVE.md`, line: "Keep commits small" }]),
    );
    await waitFor(() => expect(screen.queryByTestId("memory-pick")).toBeNull());
    const notices = screen.getAllByTestId("notice").map((n) => n.textContent);
    expect(notices).toContain(`Added to ${project}/NERVE.md: Keep commits small`);
    expect(box.value).toBe("");
    expect(live.called("send_prompt")).toHaveLength(0);
    expect(live.turns).toHaveLength(0);
  });

  it("adds to another file when picked, also while a turn runs", async () => {
    const { live, user, box } = setup();
    await user.type(box, "hello{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    await user.type(box, "#Prefer small functions{Enter}");
    await screen.findByTestId("memory-pick");
    await waitFor(() => expect(screen.getAllByTestId("memory-pick-option")).toHaveLength(4));
    await user.click(screen.getAllByTestId("memory-pick-option")[1]!);
    await user.click(screen.getByTestId("memory-pick-add"));
    await waitFor(() => expect(live.called("append_memory_line")).toEqual([{ projectPath: project, path: USER_MEMORY, line: "Prefer small functions" }]));
    expect(live.turns).toHaveLength(1);
    expect(live.called("send_prompt")).toHaveLength(1);
    expect(live.session.queue).toHaveLength(0);
  });

  it("puts the text back in the prompt box on Cancel or Escape, adding nothing", async () => {
    const { live, user, box } = setup();
    await user.type(box, "# Keep commits small{Enter}");
    await screen.findByTestId("memory-pick");
    await user.click(screen.getByTestId("memory-pick-cancel"));
    expect(screen.queryByTestId("memory-pick")).toBeNull();
    expect(box.value).toBe("# Keep commits small");

    await user.type(box, "{Enter}");
    await screen.findByTestId("memory-pick");
    await user.keyboard("{Escape}");
    expect(screen.queryByTestId("memory-pick")).toBeNull();
    expect(box.value).toBe("# Keep commits small");
    expect(live.called("append_memory_line")).toHaveLength(0);
    expect(live.called("send_prompt")).toHaveLength(0);
  });
});

describe("memory helpers", () => {
  it("takes the line after # and orders the files for the chooser", () => {
    expect(memoryLine("#  Run the tests with cargo test ")).toBe("Run the tests with cargo test");
    expect(memoryLine("Run # not this")).toBeNull();
    expect(pickOrder(files("/p")).map((f) => f.path)).toEqual(["/p/NERVE.md", USER_MEMORY, "/p/CLAUDE.md", "/p/docs/style.md"]);
  });
});
