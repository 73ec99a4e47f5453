import { beforeEach, describe, expect, it, vi } from "vitest";
import { render, screen, waitFor } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import { mockIPC, mockWindows } from "@tauri-apps/api/mocks";
import FirstRun from "../lib/components/FirstRun.svelte";
import App from "../App.svelte";
import type { AppState } from "../bindings/AppState";
import type { ModelListing } from "../bindings/ModelListing";
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

describe("FirstRun with a local model server", () => {
  let calls: { cmd: string; args: unknown }[];
  beforeEach(() => {
    calls = [];
    mockWindows("main");
  });

  /** Records every command; `answers` reply to some (a thrown error is the shell's refusal). */
  function shell(answers: Record<string, (args: unknown) => unknown> = {}) {
    mockIPC((cmd, args) => {
      calls.push({ cmd, args });
      return answers[cmd] ? answers[cmd](args) : null;
    });
  }

  const model = (id: string): ModelListing => ({ id, display_name: null, context_window: null, price: null, thinking: null });

  it("offers Ollama's address and has the shell use it, then goes on like a saved key", async () => {
    shell();
    const user = userEvent.setup();
    const onsaved = vi.fn();
    render(FirstRun, { onsaved });
    const url = screen.getByTestId("first-run-local-url") as HTMLInputElement;
    expect(url.value).toBe("http://localhost:11434");
    await user.clear(url);
    await user.type(url, "http://127.0.0.1:8080");
    await user.click(screen.getByTestId("first-run-local-use"));
    await waitFor(() => expect(onsaved).toHaveBeenCalledWith(null));
    expect(calls).toEqual([{ cmd: "use_local_server", args: { baseUrl: "http://127.0.0.1:8080" } }]);
    // The key path is still there, untouched.
    expect(screen.getByTestId("api-key-input")).toBeTruthy();
  });

  it("checks the server first: how many models it offers, or why it did not answer", async () => {
    let up = true;
    shell({
      list_models: () => {
        if (!up) throw "could not connect to http://localhost:11434/v1/models: connection refused";
        return [model("llama3.2"), model("qwen3:8b"), model("gemma3")];
      },
    });
    const user = userEvent.setup();
    const onsaved = vi.fn();
    render(FirstRun, { onsaved });
    await user.click(screen.getByTestId("first-run-local-check"));
    const found = await screen.findByTestId("first-run-local-found");
    expect(found.textContent).toBe("The server offers 3 models: llama3.2, qwen3:8b, gemma3.");
    expect(calls).toEqual([{ cmd: "list_models", args: { baseUrl: "http://localhost:11434", customHeaders: null } }]);

    up = false;
    await user.click(screen.getByTestId("first-run-local-check"));
    await waitFor(() => expect(screen.getByRole("alert").textContent).toContain("connection refused"));
    expect(screen.queryByTestId("first-run-local-found")).toBeNull();
    expect(onsaved).not.toHaveBeenCalled(); // a check saves nothing
  });

  it("shows the shell's refusal in its words and stays: another machine's address, or no URL", async () => {
    const refusals: Record<string, string> = {
      "http://192.168.1.20:11434":
        "Without a key, Nerve uses only a server on this computer (localhost, 127.0.0.1 or ::1). For http://192.168.1.20:11434, save a key above, then set the base URL in Settings.",
      "localhost:11434": "the base URL `localhost:11434` is not an http or https URL (for example http://localhost:11434)",
    };
    shell({
      use_local_server: (args) => {
        throw refusals[(args as { baseUrl: string }).baseUrl];
      },
    });
    const user = userEvent.setup();
    const onsaved = vi.fn();
    render(FirstRun, { onsaved });
    const url = screen.getByTestId("first-run-local-url");
    for (const [typed, refusal] of Object.entries(refusals)) {
      await user.clear(url);
      await user.type(url, typed);
      await user.click(screen.getByTestId("first-run-local-use"));
      await waitFor(() => expect(screen.getByRole("alert").textContent).toBe(refusal));
    }
    expect(onsaved).not.toHaveBeenCalled();
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
    await waitFor(() => expect(calls).toContain("list_tasks"));
    // The sidebar lists the project's sessions and their worktrees too, once it is open.
    expect(calls).toContain("list_sessions");
    expect(calls).toContain("list_worktrees");
    expect(calls.filter((c) => c !== "list_sessions" && c !== "list_worktrees")).toEqual([
      "get_app_state",
      // Clicks on the shell's notices, followed from the start.
      "watch_attention",
      "set_api_key",
      "get_app_state",
      "open_project",
      "start_session",
      // The session's background tasks: followed between turns, and listed once.
      "watch_session",
      "get_changes",
      "list_commands",
      "list_tasks",
    ]);
  });

  it("goes from first run to the project picker once a local server is chosen", async () => {
    let baseUrl: string | null = null;
    const calls: string[] = [];
    mockIPC((cmd, args) => {
      calls.push(cmd);
      if (cmd === "use_local_server") {
        baseUrl = (args as { baseUrl: string }).baseUrl;
        return { base_url: baseUrl, provider: null, model: null, fast_model: null, effort: null, default_mode: null, max_concurrency: null, max_model_calls: null, custom_headers: null, new_session_worktree: "parallel", turn_end_notices: "all", shortcuts: {} };
      }
      if (cmd !== "get_app_state") return null;
      // The shell counts a loopback base URL as set up: no key needed.
      const state: AppState = {
        has_api_key: baseUrl !== null,
        key_source: null,
        keyring_problem: null,
        has_auth_token: false,
        credentials_in_use: baseUrl ? "none (a local model server)" : null,
        settings: { base_url: baseUrl, provider: null, model: null, fast_model: null, effort: null, default_mode: null, max_concurrency: null, max_model_calls: null, custom_headers: null, new_session_worktree: "parallel", turn_end_notices: "all", shortcuts: {}, sidebar_collapsed: null, update_feed_url: null },
        default_model: "claude-default",
        default_fast_model: "claude-fast",
        recent_projects: [],
      };
      return state;
    });
    const user = userEvent.setup();
    render(App);
    await screen.findByTestId("first-run");
    await user.click(screen.getByTestId("first-run-local-use"));
    await screen.findByTestId("project-picker");
    expect(calls).toEqual(["get_app_state", "watch_attention", "use_local_server", "get_app_state"]);
    expect(screen.queryByTestId("key-note")).toBeNull();
  });
});
