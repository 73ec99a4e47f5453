import { beforeEach, describe, expect, it, vi } from "vitest";
import { render, screen, waitFor } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import { mockIPC, mockWindows } from "@tauri-apps/api/mocks";
import FirstRun from "../lib/components/FirstRun.svelte";
import App from "../App.svelte";
import { sessionInfo } from "./live";

const KEY = "sk-ant-api03-SECRET-VALUE-123";

describe("FirstRun", () => {
  let calls: { cmd: string; args: unknown }[];
  beforeEach(() => {
    calls = [];
    mockWindows("main");
  });

  it("saves the key with set_api_key through a masked input and never renders it back", async () => {
    mockIPC((cmd, args) => {
      calls.push({ cmd, args });
      return null;
    });
    const user = userEvent.setup();
    const onsaved = vi.fn();
    render(FirstRun, { onsaved });
    const input = screen.getByTestId("api-key-input") as HTMLInputElement;
    expect(input.type).toBe("password");
    expect((screen.getByTestId("api-key-save") as HTMLButtonElement).disabled).toBe(true);
    await user.type(input, KEY);
    await user.click(screen.getByTestId("api-key-save"));
    await waitFor(() => expect(onsaved).toHaveBeenCalledWith(null));
    expect(calls).toEqual([{ cmd: "set_api_key", args: { key: KEY } }]);
    expect(input.value).toBe("");
    expect(document.body.innerHTML).not.toContain("SECRET");
  });

  it("shows why saving failed and keeps the screen", async () => {
    mockIPC(() => {
      throw new Error("no keyring service");
    });
    const user = userEvent.setup();
    const onsaved = vi.fn();
    render(FirstRun, { onsaved });
    await user.type(screen.getByTestId("api-key-input"), KEY);
    await user.click(screen.getByTestId("api-key-save"));
    await waitFor(() => expect(screen.getByRole("alert").textContent).toContain("no keyring service"));
    expect(onsaved).not.toHaveBeenCalled();
  });
});

describe("FirstRun without a system keyring", () => {
  beforeEach(() => mockWindows("main"));

  it("says so in one calm line, keeps the D-Bus details behind a disclosure, and passes on where the key went", async () => {
    const note = "No system keyring answered, so the key is kept in /home/me/.config/nerve/credentials, readable only by you.";
    mockIPC((cmd) => (cmd === "set_api_key" ? note : null));
    const user = userEvent.setup();
    const onsaved = vi.fn();
    const problem =
      "the OS keyring is not available: no Secret Service (gnome-keyring, KeePassXC...) is running on the D-Bus session bus (org.freedesktop.DBus.Error.ServiceUnknown)";
    render(FirstRun, { keyringProblem: problem, onsaved });
    expect(screen.getByTestId("keyring-fallback").textContent?.trim()).toBe(
      "No system keyring answered here, so the key will be kept in a file only you can read.",
    );
    expect(screen.queryByRole("alert")).toBeNull();
    const details = screen.getByTestId("keyring-details") as HTMLDetailsElement;
    expect(details.open).toBe(false);
    expect(details.textContent).toContain("ServiceUnknown");
    await user.type(screen.getByTestId("api-key-input"), KEY);
    await user.click(screen.getByTestId("api-key-save"));
    await waitFor(() => expect(onsaved).toHaveBeenCalledWith(note));
  });
});

describe("App flow", () => {
  beforeEach(() => mockWindows("main"));

  it("goes from first run to the project picker once the key is saved, then into a session", async () => {
    let hasKey = false;
    const calls: string[] = [];
    mockIPC((cmd, args) => {
      calls.push(cmd);
      switch (cmd) {
        case "get_app_state":
          return {
            has_api_key: hasKey,
            key_source: hasKey ? "keyring" : null,
            keyring_problem: null,
            settings: { base_url: null, model: null, fast_model: null },
            default_model: "claude-default",
            default_fast_model: "claude-fast",
            recent_projects: [],
          };
        case "set_api_key":
          hasKey = true;
          return null;
        case "open_project":
          return { path: (args as { path: string }).path, mode: "default", sessions: [], unapproved_mcp_servers: [] };
        case "start_session":
          return sessionInfo({ project_path: "/proj", model: "claude-x" });
        default:
          return null;
      }
    });
    const user = userEvent.setup();
    render(App);
    await screen.findByTestId("first-run");
    await user.type(screen.getByTestId("api-key-input"), KEY);
    await user.click(screen.getByTestId("api-key-save"));
    await screen.findByTestId("project-picker");
    expect(document.body.innerHTML).not.toContain("SECRET");
    await user.type(screen.getByTestId("project-path-input"), "/proj");
    await user.click(screen.getByTestId("project-path-open"));
    await screen.findByTestId("prompt-input");
    expect(screen.getByTestId("turn-status").textContent?.trim()).toBe("idle");
    // The header asks for the session's changes (its +/− totals) and the prompt box for the slash
    // commands once the session shows.
    await waitFor(() => expect(calls).toContain("get_changes"));
    await waitFor(() => expect(calls).toContain("list_commands"));
    expect(calls).toEqual(["get_app_state", "set_api_key", "get_app_state", "open_project", "start_session", "get_changes", "list_commands"]);
  });
});
