import { beforeEach, describe, expect, it, vi } from "vitest";
import { render, screen, waitFor } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import { mockIPC, mockWindows } from "@tauri-apps/api/mocks";
import Conversation from "../lib/components/Conversation.svelte";
import { SessionStore } from "../lib/conversation/session.svelte";
import { sessionInfo } from "./live";

function newSession() {
  return new SessionStore(
    sessionInfo({ project_path: "/p", warnings: ["transcript line 3 damaged"] }),
    ["github"],
  );
}

describe("mode switcher and todo list", () => {
  let modeCalls: unknown[];
  beforeEach(() => {
    modeCalls = [];
    mockWindows("main");
    mockIPC((cmd, args) => {
      if (cmd === "set_permission_mode") {
        modeCalls.push(args);
        return (args as { mode: string }).mode;
      }
      return null;
    });
  });

  it("switches mode through set_permission_mode, asking before bypass", async () => {
    const user = userEvent.setup();
    render(Conversation, { session: newSession(), onclose: vi.fn() });
    const select = screen.getByTestId("mode-switcher") as HTMLSelectElement;
    expect(select.value).toBe("default");

    await user.selectOptions(select, "acceptEdits");
    await waitFor(() => expect(select.value).toBe("acceptEdits"));
    expect(modeCalls).toEqual([{ sessionId: "s1", mode: "acceptEdits" }]);

    await user.selectOptions(select, "bypassPermissions");
    expect(screen.getByTestId("bypass-confirm").textContent).toContain("without asking");
    expect(modeCalls).toHaveLength(1); // nothing sent before confirming
    expect(select.value).toBe("acceptEdits");
    await user.click(screen.getByTestId("bypass-confirm-yes"));
    await waitFor(() => expect(select.value).toBe("bypassPermissions"));
    expect(modeCalls).toEqual([{ sessionId: "s1", mode: "acceptEdits" }, { sessionId: "s1", mode: "bypassPermissions" }]);
  });

  it("follows mode_changed and todos_changed events, and shows start-up warnings", async () => {
    const session = newSession();
    render(Conversation, { session, onclose: vi.fn() });
    const notices = screen.getAllByTestId("notice").map((n) => n.textContent);
    expect(notices[0]).toContain("transcript line 3 damaged");
    expect(notices[1]).toContain("github");

    session.apply({ type: "mode_changed", mode: "plan" });
    session.apply({
      type: "todos_changed",
      todos: [
        { content: "Read code", status: "completed", activeForm: "Reading code" },
        { content: "Fix bug", status: "in_progress", activeForm: "Fixing bug" },
      ],
    });
    await waitFor(() => expect((screen.getByTestId("mode-switcher") as HTMLSelectElement).value).toBe("plan"));
    const items = screen.getByTestId("todo-list").querySelectorAll("li");
    expect([...items].map((li) => li.dataset.status)).toEqual(["completed", "in_progress"]);
    expect(items[1]!.textContent).toContain("Fixing bug"); // active form while in progress
  });
});
