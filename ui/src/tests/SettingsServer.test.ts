// The app's own settings: the model server (a local one included), the defaults for new sessions
// saved in one go, the gateway token, and Settings opened at the MCP servers from a session.
import { describe, expect, it, vi } from "vitest";
import { render, screen, waitFor } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import App from "../App.svelte";
import SettingsPanel from "../lib/components/SettingsPanel.svelte";
import type { AppSettings } from "../bindings/AppSettings";
import type { AppState } from "../bindings/AppState";
import type { ModelListing } from "../bindings/ModelListing";
import { appState, liveSession, projectInfo } from "./live";
import { appWith, mockSettings, PROJECT } from "./settingsFixtures";

const MODELS: ModelListing[] = [
  { id: "qwen2.5-coder:32b", display_name: "Qwen 2.5 Coder 32B", context_window: null, price: null, thinking: null },
  { id: "llama3.1:8b", display_name: null, context_window: null, price: null, thinking: null },
];

const value = (testid: string) => (screen.getByTestId(testid) as HTMLInputElement).value;

describe("The API key block", () => {
  it("says a stored key is set, and that a local server needs none", () => {
    mockSettings({});
    const { unmount } = render(SettingsPanel, { app: appState(), onchanged: vi.fn(), onclose: vi.fn() });
    expect(screen.getByTestId("settings-key-status").textContent?.trim()).toBe("A key is set (from keyring). It is never shown.");
    expect(screen.getByRole("button", { name: "Delete key…" })).toBeTruthy();
    unmount();
    const local: AppState = { ...appState(), key_source: null, credentials_in_use: "none (a local model server)" };
    render(SettingsPanel, { app: local, onchanged: vi.fn(), onclose: vi.fn() });
    expect(screen.getByTestId("settings-key-status").textContent?.trim()).toBe(
      "No key is stored; none is needed now (none (a local model server)).",
    );
    expect(screen.queryByRole("button", { name: "Delete key…" })).toBeNull();
    expect(screen.getByRole("button", { name: "Save key" })).toBeTruthy();
  });
});

describe("The model server's API", () => {
  const openai = () => appWith({ settings: { ...appState().settings, provider: "openai-chat" }, key_source: null, has_api_key: false, credentials_in_use: null });
  const text = (testid: string) => screen.getByTestId(testid).textContent?.replace(/\s+/g, " ").trim();

  it("shows the saved API, with Anthropic's hint and placeholder when none is saved", () => {
    mockSettings();
    render(SettingsPanel, { app: appState(), onchanged: vi.fn(), onclose: vi.fn() });
    const select = screen.getByTestId("provider-select") as HTMLSelectElement;
    expect(select.value).toBe("anthropic");
    expect([...select.options].map((o) => [o.value, o.textContent])).toEqual([
      ["anthropic", "Anthropic (Messages API)"],
      ["openai-chat", "OpenAI-compatible (Chat Completions)"],
      ["openai-responses", "OpenAI (Responses API)"],
    ]);
    expect(text("provider-hint")).not.toContain("api.openai.com");
    expect(screen.getByTestId("settings-base-url").getAttribute("placeholder")).toBe("https://api.anthropic.com");
    expect(text("settings-key-label")).toBe("Anthropic API key");
    expect(screen.queryByTestId("settings-key-env")).toBeNull();
    expect(screen.queryByTestId("provider-unsaved")).toBeNull();
  });

  it("shows a saved OpenAI-compatible API with its hint, placeholder and key", () => {
    mockSettings();
    render(SettingsPanel, { app: openai(), onchanged: vi.fn(), onclose: vi.fn() });
    expect((screen.getByTestId("provider-select") as HTMLSelectElement).value).toBe("openai-chat");
    expect(text("provider-hint")).toBe(
      "vLLM, LM Studio, llama.cpp's server, Ollama (http://localhost:11434/v1), gateways or OpenAI. Without a base URL: https://api.openai.com. Tool calls, streaming and images are translated; extended thinking and web search are Anthropic's only.",
    );
    expect(screen.getByTestId("settings-base-url").getAttribute("placeholder")).toBe("https://api.openai.com or http://localhost:11434/v1");
    expect(text("settings-key-label")).toBe("OpenAI-compatible API key");
    expect(text("settings-key-env")).toContain("OPENAI_API_KEY");
  });

  it("is saved with the other fields, and says the key follows the saved API until then", async () => {
    const ipc = mockSettings({ save_settings: (args) => args.settings });
    const user = userEvent.setup();
    render(SettingsPanel, { app: appState(), onchanged: vi.fn(), onclose: vi.fn() });
    await user.selectOptions(screen.getByTestId("provider-select"), "openai-chat");
    expect(text("provider-hint")).toContain("Without a base URL: https://api.openai.com.");
    expect(screen.getByTestId("settings-base-url").getAttribute("placeholder")).toBe("https://api.openai.com or http://localhost:11434/v1");
    expect(text("provider-unsaved")).toContain("use Anthropic (Messages API) until you save the settings");
    // The key block is the saved API's until the settings are saved.
    expect(text("settings-key-label")).toBe("Anthropic API key");
    await user.click(screen.getByTestId("use-local-server"));
    expect(value("settings-base-url")).toBe("http://localhost:11434/v1");

    await user.click(screen.getByTestId("settings-save"));
    await waitFor(() => expect(ipc.called("save_settings")).toHaveLength(1));
    expect(ipc.called("save_settings")[0]).toEqual({
      settings: { ...appState().settings, provider: "openai-chat", base_url: "http://localhost:11434/v1" },
    });
  });

  it("saves Anthropic's as unset", async () => {
    const ipc = mockSettings({ save_settings: (args) => args.settings });
    const user = userEvent.setup();
    render(SettingsPanel, { app: openai(), onchanged: vi.fn(), onclose: vi.fn() });
    await user.selectOptions(screen.getByTestId("provider-select"), "anthropic");
    expect(text("provider-unsaved")).toContain("use OpenAI-compatible (Chat Completions) until");
    await user.click(screen.getByTestId("settings-save"));
    await waitFor(() => expect(ipc.called("save_settings")).toHaveLength(1));
    expect(ipc.called("save_settings")[0]).toEqual({ settings: { ...openai().settings, provider: null } });
  });

  it("stores and deletes the key of the saved API", async () => {
    const ipc = mockSettings({ set_api_key: () => null, delete_api_key: () => null });
    const onchanged = vi.fn();
    const user = userEvent.setup();
    const { unmount } = render(SettingsPanel, { app: openai(), onchanged, onclose: vi.fn() });
    await user.type(screen.getByTestId("settings-new-key"), " sk-openai ");
    await user.click(screen.getByRole("button", { name: "Save key" }));
    await waitFor(() => expect(ipc.called("set_api_key")).toEqual([{ key: "sk-openai", provider: "openai-chat" }]));
    await waitFor(() => expect(onchanged).toHaveBeenCalledOnce());
    unmount();

    render(SettingsPanel, { app: { ...openai(), key_source: "keyring", has_api_key: true }, onchanged, onclose: vi.fn() });
    await user.click(screen.getByRole("button", { name: "Delete key…" }));
    await user.click(screen.getByRole("button", { name: "Delete" }));
    await waitFor(() => expect(ipc.called("delete_api_key")).toEqual([{ provider: "openai-chat" }]));
  });

  it("stores Anthropic's key when no API is saved", async () => {
    const ipc = mockSettings({ set_api_key: () => null });
    const user = userEvent.setup();
    render(SettingsPanel, { app: appState(), onchanged: vi.fn(), onclose: vi.fn() });
    await user.type(screen.getByTestId("settings-new-key"), "sk-ant");
    await user.click(screen.getByRole("button", { name: "Replace key" }));
    await waitFor(() => expect(ipc.called("set_api_key")).toEqual([{ key: "sk-ant", provider: "anthropic" }]));
  });
});

describe("Model server and defaults", () => {
  it("saves all eleven fields in one go, blanks as unset, and shows them as the engine stored them", async () => {
    const stored: AppSettings = {
      base_url: "https://gateway.example.com",
      provider: null,
      model: "claude-big",
      fast_model: null,
      effort: "medium",
      default_mode: "acceptEdits",
      max_concurrency: 4,
      max_model_calls: 250,
      custom_headers: "X-Team: platform",
      new_session_worktree: "always",
      turn_end_notices: "all",
      shortcuts: {},
      sidebar_collapsed: null,
      update_feed_url: null,
    };
    const ipc = mockSettings({ save_settings: () => stored });
    const onchanged = vi.fn();
    const user = userEvent.setup();
    render(SettingsPanel, { app: appState(), onchanged, onclose: vi.fn() });
    await user.type(screen.getByTestId("settings-base-url"), "https://gateway.example.com");
    await user.type(screen.getByTestId("settings-custom-headers"), " X-Team: platform ");
    await user.type(screen.getByTestId("settings-model"), "claude-big");
    await user.selectOptions(screen.getByTestId("settings-effort"), "medium");
    await user.selectOptions(screen.getByTestId("settings-default-mode"), "acceptEdits");
    await user.type(screen.getByTestId("settings-concurrency"), "4");
    await user.type(screen.getByTestId("settings-max-model-calls"), "250");
    await user.selectOptions(screen.getByTestId("settings-worktree-when"), "always");
    await user.click(screen.getByTestId("settings-save"));

    await waitFor(() => expect(ipc.called("save_settings")).toHaveLength(1));
    expect(ipc.called("save_settings")[0]).toEqual({
      settings: {
        base_url: "https://gateway.example.com",
        provider: null,
        model: "claude-big",
        fast_model: null,
        effort: "medium",
        default_mode: "acceptEdits",
        max_concurrency: 4,
        max_model_calls: 250,
        custom_headers: "X-Team: platform",
        new_session_worktree: "always",
        turn_end_notices: "all",
        shortcuts: {},
        sidebar_collapsed: null,
        update_feed_url: null,
      },
    });
    expect((await screen.findByText("Settings saved.")).getAttribute("role")).toBe("status");
    expect(onchanged).toHaveBeenCalledOnce();
    expect(value("settings-custom-headers")).toBe("X-Team: platform");
    expect(value("settings-max-model-calls")).toBe("250");
  });

  it("shows the model-call limit as stored, saves it emptied as unset, and refuses a fraction", async () => {
    const ipc = mockSettings({ save_settings: (args) => args.settings });
    const user = userEvent.setup();
    const app = appWith({ settings: { ...appState().settings, max_model_calls: 40 } });
    render(SettingsPanel, { app, onchanged: vi.fn(), onclose: vi.fn() });
    const field = screen.getByTestId("settings-max-model-calls");
    expect(value("settings-max-model-calls")).toBe("40");
    expect(screen.getByText("After this many, the turn stops and offers to continue; empty means 100.")).toBeTruthy();

    await user.clear(field);
    await user.type(field, "2.5");
    await user.click(screen.getByTestId("settings-save"));
    expect((await screen.findByRole("alert")).textContent).toContain("model calls per prompt must be a whole number");
    expect(ipc.called("save_settings")).toEqual([]);

    await user.clear(field);
    await user.click(screen.getByTestId("settings-save"));
    await waitFor(() => expect(ipc.called("save_settings")).toHaveLength(1));
    expect(ipc.called("save_settings")[0]).toEqual({ settings: { ...appState().settings, max_model_calls: null } });
  });

  it("shows the engine's refusal and keeps what was typed", async () => {
    mockSettings({ save_settings: () => Promise.reject("the concurrency cap must be between 1 and 64, not 99") });
    const onchanged = vi.fn();
    const user = userEvent.setup();
    render(SettingsPanel, { app: appState(), onchanged, onclose: vi.fn() });
    await user.type(screen.getByTestId("settings-concurrency"), "99");
    await user.click(screen.getByTestId("settings-save"));
    expect((await screen.findByRole("alert")).textContent).toContain("between 1 and 64, not 99");
    expect(value("settings-concurrency")).toBe("99");
    expect(onchanged).not.toHaveBeenCalled();
  });

  it("fills in a local model server, lists its models and takes the one clicked as the model", async () => {
    const ipc = mockSettings({ list_models: () => MODELS });
    const user = userEvent.setup();
    render(SettingsPanel, { app: appState(), onchanged: vi.fn(), onclose: vi.fn() });
    await user.click(screen.getByTestId("use-local-server"));
    expect(value("settings-base-url")).toBe("http://localhost:11434");
    expect(screen.getByTestId("local-server-help").textContent).toContain("No key is needed");

    await user.click(screen.getByTestId("list-models"));
    await waitFor(() => expect(ipc.called("list_models")).toEqual([{ baseUrl: "http://localhost:11434", customHeaders: null }]));
    const options = await screen.findAllByTestId("model-option");
    expect(options.map((o) => o.dataset.model)).toEqual(["qwen2.5-coder:32b", "llama3.1:8b"]);
    expect(screen.getByTestId("model-list").textContent).toContain("Qwen 2.5 Coder 32B");
    await user.click(options[0]!);
    expect(value("settings-model")).toBe("qwen2.5-coder:32b");
    // The listing is offered while typing either model, too.
    const listId = screen.getByTestId("settings-fast-model").getAttribute("list");
    const datalist = document.getElementById(listId ?? "");
    expect([...(datalist?.querySelectorAll("option") ?? [])].map((o) => o.value)).toEqual(["qwen2.5-coder:32b", "llama3.1:8b"]);
  });

  it("says what the next session authenticates with, and stores or removes a gateway token", async () => {
    const ipc = mockSettings({ set_auth_token: () => null });
    const onchanged = vi.fn();
    const user = userEvent.setup();
    const app = appWith({ has_auth_token: true, credentials_in_use: "the stored auth token (OS keyring)" });
    render(SettingsPanel, { app, onchanged, onclose: vi.fn() });
    expect(screen.getByTestId("settings-credentials").textContent).toContain("Next session authenticates with: the stored auth token (OS keyring)");
    expect(screen.getByTestId("settings-token-status").textContent).toContain("Authorization: Bearer");

    const token = screen.getByTestId("settings-auth-token") as HTMLInputElement;
    expect(token.type).toBe("password");
    await user.type(token, "gw-secret");
    await user.click(screen.getByTestId("settings-save-token"));
    await waitFor(() => expect(ipc.called("set_auth_token")).toEqual([{ token: "gw-secret" }]));
    await waitFor(() => expect(onchanged).toHaveBeenCalledOnce());
    expect(token.value).toBe("");

    await user.click(screen.getByTestId("settings-remove-token"));
    await waitFor(() => expect(ipc.called("delete_auth_token")).toHaveLength(1));
  });

  it("offers every mode a new session can start in, warns about bypass, and notes an open session keeps its own", async () => {
    mockSettings();
    const user = userEvent.setup();
    const { unmount } = render(SettingsPanel, { app: appState(), onchanged: vi.fn(), onclose: vi.fn() });
    const select = screen.getByTestId("settings-default-mode") as HTMLSelectElement;
    expect([...select.options].map((o) => o.textContent)).toEqual([
      "(project's setting)",
      "Default",
      "Accept edits",
      "Plan",
      "Auto",
      "Don't ask",
      "Bypass permissions",
    ]);
    expect(screen.getByTestId("settings-mode-help").textContent).toContain("project's settings");
    await user.selectOptions(select, "Auto");
    expect(screen.getByTestId("settings-mode-help").textContent).toContain("classifier approves routine calls");
    await user.selectOptions(select, "Bypass permissions");
    expect(screen.getByTestId("settings-mode-help").className).toContain("danger-note");
    expect(screen.queryByTestId("settings-applies-note")).toBeNull();
    unmount();

    render(SettingsPanel, { app: appState(), onchanged: vi.fn(), onclose: vi.fn(), projectPath: PROJECT, sessionId: "s1" });
    expect(screen.getByTestId("settings-applies-note").textContent).toBe("Applies to new sessions; the open session keeps its settings.");
  });
});

describe("Unapproved MCP servers", () => {
  it("lead from the session to Settings at the MCP section", async () => {
    const scrolled = vi.spyOn(Element.prototype, "scrollIntoView");
    const live = liveSession(undefined, { open_project: ({ path }) => ({ ...projectInfo(String(path)), unapproved_mcp_servers: ["github"] }) });
    const user = userEvent.setup();
    render(App);
    await user.type(await screen.findByTestId("project-path-input"), PROJECT);
    await user.click(screen.getByTestId("project-path-open"));

    const link = await screen.findByTestId("mcp-review");
    expect(link.textContent).toContain("1 MCP server to approve");
    await user.click(link);
    expect(screen.getByTestId("settings-panel")).toBeTruthy();
    expect(screen.getByTestId("settings-nav-mcp").getAttribute("aria-current")).toBe("true");
    const section = screen.getByTestId("settings-section-mcp");
    expect(scrolled.mock.contexts).toContain(section);
    expect(document.activeElement).toBe(section.querySelector("h3"));
    // The open project's settings, with the session's own rules.
    await waitFor(() => expect(live.called("get_project_settings")).toEqual([{ projectPath: PROJECT, sessionId: "s1" }]));
    scrolled.mockRestore();
  });

  it("are named by a notice in the conversation whose button opens Settings there", async () => {
    vi.spyOn(Element.prototype, "scrollIntoView").mockImplementation(() => {});
    liveSession(undefined, { open_project: ({ path }) => ({ ...projectInfo(String(path)), unapproved_mcp_servers: ["github", "db"] }) });
    const user = userEvent.setup();
    render(App);
    await user.type(await screen.findByTestId("project-path-input"), PROJECT);
    await user.click(screen.getByTestId("project-path-open"));

    const button = await screen.findByTestId("notice-review-mcp", {}, { timeout: 5000 });
    expect(button.closest("[data-testid='notice']")?.textContent).toContain(
      "MCP servers from .mcp.json are not started until you approve them in Settings: github, db",
    );
    await user.click(button);
    expect(screen.getByTestId("settings-nav-mcp").getAttribute("aria-current")).toBe("true");
    vi.restoreAllMocks();
  });
});
