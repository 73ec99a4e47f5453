// The header's model picker and thinking effort: the server's models with what is known of them,
// choosing one (or any id typed), the effort levels, changes made during a turn (the engine keeps
// them for the next prompt), `/model` and `/effort`, and the default effort in Settings.
import { describe, expect, it, vi } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import type { Effort } from "../bindings/Effort";
import type { ModelChoice } from "../bindings/ModelChoice";
import type { ModelListing } from "../bindings/ModelListing";
import type { SessionInfo } from "../bindings/SessionInfo";
import Conversation from "../lib/components/Conversation.svelte";
import SettingsPanel from "../lib/components/SettingsPanel.svelte";
import { effortHint, effortNamed } from "../lib/effort";
import { contextWindowText, filterModels, modelName, priceText } from "../lib/models";
import { parseBuiltin } from "../lib/slashCommands";
import { appState, liveSession, sessionInfo, type Handler, type Live } from "./live";
import { appWith, mockSettings } from "./settingsFixtures";

const listing = (id: string, fields: Partial<ModelListing> = {}): ModelListing => ({
  id,
  display_name: null,
  context_window: null,
  price: null,
  thinking: null,
  ...fields,
});

const MODELS: ModelListing[] = [
  listing("claude-opus-4", { display_name: "Claude Opus 4", context_window: 200_000, price: { input_per_mtok: 15, output_per_mtok: 75 }, thinking: true }),
  listing("claude-sonnet-4", { display_name: "Claude Sonnet 4", context_window: 1_000_000, price: { input_per_mtok: 3, output_per_mtok: 15 }, thinking: true }),
  listing("claude-3-5-haiku", { display_name: "Claude Haiku 3.5", context_window: 200_000, price: { input_per_mtok: 0.8, output_per_mtok: 4 }, thinking: false }),
  listing("qwen2.5-coder:32b"),
];

/** A session on `model` whose engine takes model and effort changes as the real one does: at once
 *  between turns, for the next prompt while one runs. `list` answers list_models. */
function setup(info: SessionInfo = sessionInfo({ model: "claude-sonnet-4" }), list: Handler = () => MODELS, handlers: Record<string, Handler> = {}) {
  const held: { model: string; effort: Effort } = { model: info.model, effort: info.effort };
  const choice = (): ModelChoice => ({ ...held, at_next_prompt: live.turns.some((t) => !t.settled) });
  const live: Live = liveSession(info, {
    list_models: list,
    set_model: (args) => {
      held.model = String(args.model);
      return choice();
    },
    set_effort: (args) => {
      held.effort = args.effort as Effort;
      return choice();
    },
    ...handlers,
  });
  const user = userEvent.setup();
  render(Conversation, { session: live.session, onclose: vi.fn() });
  const box = screen.getByTestId("prompt-input") as HTMLTextAreaElement;
  return { live, user, box };
}

const picker = () => screen.getByTestId("model-picker");
const menu = () => screen.queryByTestId("model-menu");
const text = (testId: string) => screen.queryByTestId(testId)?.textContent?.trim() ?? null;
const notices = () => screen.queryAllByTestId("notice").map((n) => n.textContent?.trim());
const errors = () => screen.queryAllByTestId("notice").filter((n) => n.classList.contains("error")).map((n) => n.textContent?.trim());
const option = (id: string) => screen.getAllByTestId("model-menu-option").find((o) => o.dataset.model === id)!;
const level = (effort: Effort) => screen.getAllByTestId("effort-option").find((o) => o.dataset.effort === effort) as HTMLButtonElement;
const levels = () => Object.fromEntries(screen.getAllByTestId("effort-option").map((o) => [o.dataset.effort, o.getAttribute("aria-checked")]));

/** Each row of the menu as the user reads it. */
const rows = () =>
  screen.getAllByTestId("model-menu-option").map((o) => {
    const part = (testId: string) => within(o).queryByTestId(testId)?.textContent?.trim() ?? null;
    return {
      model: o.dataset.model,
      pressed: o.getAttribute("aria-pressed"),
      name: part("model-option-name"),
      id: part("model-option-id"),
      context: part("model-option-context"),
      price: part("model-option-price"),
    };
  });

async function openMenu(user: ReturnType<typeof userEvent.setup>) {
  await user.click(picker());
  await screen.findAllByTestId("model-menu-option");
}

describe("the model menu", () => {
  it("lists the server's models with their context window and price where known; the current one is pressed", async () => {
    const { live, user } = setup();
    expect(text("model-picker-name")).toBe("claude-sonnet-4");
    expect(picker().getAttribute("aria-expanded")).toBe("false");
    await user.click(picker());
    expect(menu()).toBeTruthy();
    expect(picker().getAttribute("aria-expanded")).toBe("true");
    await screen.findAllByTestId("model-menu-option");
    expect(live.called("list_models")).toEqual([{ baseUrl: null, customHeaders: null }]);
    expect(rows()).toEqual([
      { model: "claude-opus-4", pressed: "false", name: "Claude Opus 4", id: "claude-opus-4", context: "200k context", price: "$15 / $75 per Mtok" },
      { model: "claude-sonnet-4", pressed: "true", name: "Claude Sonnet 4", id: "claude-sonnet-4", context: "1M context", price: "$3 / $15 per Mtok" },
      { model: "claude-3-5-haiku", pressed: "false", name: "Claude Haiku 3.5", id: "claude-3-5-haiku", context: "200k context", price: "$0.8 / $4 per Mtok" },
      { model: "qwen2.5-coder:32b", pressed: "false", name: "qwen2.5-coder:32b", id: null, context: null, price: null },
    ]);
    // Four models need no filter; the header now has the listing's name for the model.
    expect(screen.queryByTestId("model-menu-filter")).toBeNull();
    expect(text("model-picker-name")).toBe("Claude Sonnet 4");
    // The focus went into the menu, to the current model; arrows move through the rows.
    await waitFor(() => expect(document.activeElement).toBe(option("claude-sonnet-4")));
    await user.keyboard("{ArrowDown}");
    expect(document.activeElement).toBe(option("claude-3-5-haiku"));
    await user.keyboard("{ArrowUp}{ArrowUp}");
    expect(document.activeElement).toBe(option("claude-opus-4"));

    // Escape closes it (the focus goes back to the button); a click elsewhere too.
    await user.keyboard("{Escape}");
    expect(menu()).toBeNull();
    expect(document.activeElement).toBe(picker());
    await openMenu(user);
    expect(live.called("list_models")).toHaveLength(2);
    await user.click(screen.getByTestId("turn-status"));
    expect(menu()).toBeNull();
  });

  it("says it is loading until the list comes, and offers a filter past eight models", async () => {
    let answer: (models: ModelListing[]) => void = () => {};
    const many = Array.from({ length: 12 }, (_, i) => listing(`model-${i + 1}`, { display_name: i === 10 ? "Special" : null }));
    const { user } = setup(sessionInfo({ model: "model-1" }), () => new Promise<ModelListing[]>((resolve) => (answer = resolve)));
    await user.click(picker());
    expect(text("model-menu-loading")).toBe("Loading models…");
    answer(many);
    const filter = await screen.findByTestId("model-menu-filter");
    await waitFor(() => expect(document.activeElement).toBe(filter));
    await user.type(filter, "spec");
    expect(rows().map((r) => r.model)).toEqual(["model-11"]);
    await user.clear(filter);
    await user.type(filter, "model-1");
    expect(rows().map((r) => r.model)).toEqual(["model-1", "model-10", "model-11", "model-12"]);
  });

  it("picking a model sets it through set_model, closes the menu and shows it in the header, with a notice", async () => {
    const { live, user } = setup();
    await openMenu(user);
    await user.click(option("claude-opus-4"));
    await waitFor(() => expect(live.called("set_model")).toEqual([{ sessionId: "s1", model: "claude-opus-4" }]));
    expect(menu()).toBeNull();
    await waitFor(() => expect(text("model-picker-name")).toBe("Claude Opus 4"));
    expect(notices()).toEqual(["Model: claude-opus-4 for this session"]);
    expect(live.session.model).toBe("claude-opus-4");
    expect(screen.queryByTestId("choice-pending")).toBeNull();
    // Reopened, the new one is pressed.
    await openMenu(user);
    expect(rows().filter((r) => r.pressed === "true").map((r) => r.model)).toEqual(["claude-opus-4"]);
  });

  it("picking an effort sets it through set_effort and keeps the menu open; the usage line and the header say it", async () => {
    const { live, user } = setup();
    expect(screen.queryByTestId("usage-effort")).toBeNull();
    expect(screen.queryByTestId("effort-chip")).toBeNull();
    await openMenu(user);
    expect(levels()).toEqual({ off: "true", low: "false", medium: "false", high: "false" });
    expect(screen.getAllByTestId("effort-option").map((o) => [o.textContent?.trim(), o.title])).toEqual([
      ["Off", "No extended thinking"],
      ["Low", "Thinks up to 4k tokens before answering"],
      ["Medium", "Thinks up to 10k tokens before answering"],
      ["High", "Thinks up to 24k tokens before answering"],
    ]);
    expect(screen.getByTestId("effort-control").getAttribute("role")).toBe("radiogroup");
    await user.click(level("high"));
    await waitFor(() => expect(live.called("set_effort")).toEqual([{ sessionId: "s1", effort: "high" }]));
    expect(menu()).toBeTruthy();
    await waitFor(() => expect(levels()).toEqual({ off: "false", low: "false", medium: "false", high: "true" }));
    const usageEffort = screen.getByTestId("usage-effort");
    expect({ text: usageEffort.textContent?.trim(), title: usageEffort.title }).toEqual({
      text: "thinking high",
      title: "Extended thinking budget of the session's requests: 24,000 tokens",
    });
    expect(text("effort-chip")).toBe("thinking high");
    expect(notices()).toEqual(["Thinking effort: high for this session"]);
    // The current level again is no change: nothing is asked; arrows move without choosing.
    await user.click(level("high"));
    await user.keyboard("{ArrowRight}");
    expect(document.activeElement).toBe(level("off"));
    await user.keyboard("{ArrowLeft}{ArrowLeft}");
    expect(document.activeElement).toBe(level("medium"));
    expect(live.called("set_effort")).toHaveLength(1);
  });

  it("starts from the session's effort", () => {
    setup(sessionInfo({ model: "claude-sonnet-4", effort: "medium" }));
    expect(text("effort-chip")).toBe("thinking medium");
    expect(text("usage-effort")).toBe("thinking medium");
  });

  it("works while a turn runs: the change waits for the next prompt, and the header says so until it is sent", async () => {
    const { live, user, box } = setup();
    await user.type(box, "refactor the parser{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    await openMenu(user);
    await user.click(level("low"));
    await waitFor(() => expect(live.called("set_effort")).toEqual([{ sessionId: "s1", effort: "low" }]));
    // Escape in the menu closes it; it does not stop the turn.
    await user.keyboard("{Escape}");
    expect(menu()).toBeNull();
    expect(live.called("abort_turn")).toEqual([]);
    await openMenu(user);
    await user.click(option("claude-opus-4"));
    await waitFor(() => expect(live.called("set_model")).toEqual([{ sessionId: "s1", model: "claude-opus-4" }]));

    const marker = await screen.findByTestId("choice-pending");
    expect({ text: marker.textContent?.trim(), title: marker.title }).toEqual({
      text: "next prompt",
      title: "A turn was running: the change applies when the next prompt starts (the running turn keeps what it started with)",
    });
    expect(notices()).toEqual(["Thinking effort: low for this session from the next prompt", "Model: claude-opus-4 for this session from the next prompt"]);
    expect(text("model-picker-name")).toBe("Claude Opus 4");

    // The turn's end does not apply it (the engine does when the next prompt starts).
    live.turns[0]!.finish();
    await waitFor(() => expect(text("turn-status")).toBe("idle"));
    expect(screen.queryByTestId("choice-pending")).toBeTruthy();
    await user.type(box, "go on{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(2));
    expect(screen.queryByTestId("choice-pending")).toBeNull();
  });

  it("a choice still waits when the engine refuses the next prompt", async () => {
    const { live, user, box } = setup();
    live.session.choicePending = true;
    await user.type(box, "hello{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    expect(screen.queryByTestId("choice-pending")).toBeNull();
    live.turns[0]!.reject("the session is busy");
    await waitFor(() => expect(errors()).toEqual(["the session is busy"]));
    expect(screen.queryByTestId("choice-pending")).toBeTruthy();
  });

  it("disables the effort for a model whose server says it cannot think, and not for one nobody knows about", async () => {
    const { user } = setup(sessionInfo({ model: "claude-3-5-haiku" }));
    await openMenu(user);
    const control = screen.getByTestId("effort-control");
    const reason = "Claude Haiku 3.5 cannot think: thinking effort does not apply to it";
    expect({ title: control.title, disabled: control.getAttribute("aria-disabled"), note: text("effort-disabled-note") }).toEqual({
      title: reason,
      disabled: "true",
      note: reason,
    });
    expect(screen.getAllByTestId("effort-option").map((o) => (o as HTMLButtonElement).disabled)).toEqual([true, true, true, true]);

    await user.click(option("qwen2.5-coder:32b"));
    await openMenu(user);
    expect(screen.getAllByTestId("effort-option").map((o) => (o as HTMLButtonElement).disabled)).toEqual([false, false, false, false]);
    expect(screen.queryByTestId("effort-disabled-note")).toBeNull();
  });

  it("shows why the list failed and still takes a model id typed", async () => {
    const { live, user } = setup(sessionInfo({ model: "claude-sonnet-4" }), () => Promise.reject("connection refused (http://localhost:11434)"));
    await user.click(picker());
    const error = await screen.findByTestId("model-menu-error");
    expect(error.textContent?.trim()).toBe("Could not list the server's models: connection refused (http://localhost:11434)");
    expect(screen.queryAllByTestId("model-menu-option")).toEqual([]);
    const custom = screen.getByTestId("model-menu-custom") as HTMLInputElement;
    expect(custom.placeholder).toBe("Other model id…");
    await user.type(custom, "  my-finetune  {Enter}");
    await waitFor(() => expect(live.called("set_model")).toEqual([{ sessionId: "s1", model: "my-finetune" }]));
    expect(menu()).toBeNull();
    await waitFor(() => expect(text("model-picker-name")).toBe("my-finetune"));
    // The effort can still be set without a list (nobody says the model cannot think).
    await user.click(picker());
    await screen.findByTestId("model-menu-error");
    expect(level("high").disabled).toBe(false);
  });

  it("says so when the engine refuses a model or an effort, and keeps what was in use", async () => {
    const { user } = setup(sessionInfo({ model: "claude-sonnet-4" }), () => MODELS, {
      set_model: () => Promise.reject("unknown model"),
      set_effort: () => Promise.reject("the session has ended"),
    });
    await openMenu(user);
    await user.click(option("claude-opus-4"));
    await waitFor(() => expect(errors()).toEqual(["Could not switch the model to claude-opus-4: unknown model"]));
    expect(text("model-picker-name")).toBe("Claude Sonnet 4");
    await openMenu(user);
    await user.click(level("medium"));
    await waitFor(() => expect(errors().at(-1)).toBe("Could not switch the thinking effort to medium: the session has ended"));
    expect(levels()).toEqual({ off: "true", low: "false", medium: "false", high: "false" });
  });
});

describe("/effort and /model", () => {
  it("/effort LEVEL sets it, /effort says which, an unknown level is refused; /model NAME still works", async () => {
    const { live, user, box } = setup();
    await user.type(box, "/effort High{Enter}");
    await waitFor(() => expect(live.called("set_effort")).toEqual([{ sessionId: "s1", effort: "high" }]));
    await waitFor(() => expect(text("effort-chip")).toBe("thinking high"));

    await user.type(box, "/effort{Enter}");
    await user.type(box, "/effort bogus{Enter}");
    await user.type(box, "/model claude-opus-4{Enter}");
    await waitFor(() => expect(live.called("set_model")).toEqual([{ sessionId: "s1", model: "claude-opus-4" }]));
    await waitFor(() =>
      expect(notices()).toEqual([
        "Thinking effort: high for this session",
        "Thinking effort: high. Change it for this session with /effort LEVEL (one of off, low, medium, high).",
        'Unknown thinking effort "bogus". The levels are: off, low, medium, high.',
        "Model: claude-opus-4 for this session",
      ]),
    );
    expect(errors()).toEqual(['Unknown thinking effort "bogus". The levels are: off, low, medium, high.']);
    expect(live.called("set_effort")).toHaveLength(1);
    expect(text("model-picker-name")).toBe("claude-opus-4");
    expect(live.turns).toEqual([]);
  });

  it("parses /effort with or without a level", () => {
    expect(parseBuiltin("/effort high")).toEqual({ name: "effort", effort: "high" });
    expect(parseBuiltin("/effort")).toEqual({ name: "effort", effort: null });
    expect(parseBuiltin("/effortless")).toBeNull();
  });
});

describe("model and effort wording", () => {
  it("names, context windows and prices as compact as they stay exact", () => {
    expect(modelName("claude-opus-4", MODELS)).toBe("Claude Opus 4");
    expect(modelName("qwen2.5-coder:32b", MODELS)).toBe("qwen2.5-coder:32b");
    expect(modelName("not-listed", MODELS)).toBe("not-listed");
    expect([contextWindowText(200_000), contextWindowText(1_000_000), contextWindowText(null), contextWindowText(0)]).toEqual([
      "200k context",
      "1M context",
      null,
      null,
    ]);
    expect([
      priceText({ input_per_mtok: 3, output_per_mtok: 15 }),
      priceText({ input_per_mtok: 0.075, output_per_mtok: 0.3 }),
      priceText({ input_per_mtok: 1.25, output_per_mtok: 10 }),
      priceText(null),
    ]).toEqual(["$3 / $15 per Mtok", "$0.075 / $0.3 per Mtok", "$1.25 / $10 per Mtok", null]);
    expect(filterModels(MODELS, " HAIKU ").map((m) => m.id)).toEqual(["claude-3-5-haiku"]);
    expect(filterModels(MODELS, "").map((m) => m.id)).toEqual(MODELS.map((m) => m.id));
  });

  it("knows the levels by name in any case", () => {
    expect([effortNamed("LOW"), effortNamed("off"), effortNamed("max")]).toEqual(["low", "off", null]);
    expect(effortHint("medium")).toBe("Thinks up to 10k tokens before answering");
  });
});

describe("the default effort in Settings", () => {
  it("shows the stored default and saves the one chosen, off as unset", async () => {
    const ipc = mockSettings({ save_settings: (args) => args.settings });
    const user = userEvent.setup();
    render(SettingsPanel, { app: appWith({ settings: { ...appState().settings, effort: "low" } }), onchanged: vi.fn(), onclose: vi.fn() });
    const select = screen.getByTestId("settings-effort") as HTMLSelectElement;
    expect(select.value).toBe("low");
    expect([...select.options].map((o) => [o.value, o.textContent?.trim()])).toEqual([
      ["off", "Off"],
      ["low", "Low (4k thinking tokens)"],
      ["medium", "Medium (10k thinking tokens)"],
      ["high", "High (24k thinking tokens)"],
    ]);
    await user.selectOptions(select, "high");
    await user.click(screen.getByTestId("settings-save"));
    await waitFor(() => expect(ipc.called("save_settings")).toEqual([{ settings: { ...appState().settings, effort: "high" } }]));

    await user.selectOptions(select, "off");
    await user.click(screen.getByTestId("settings-save"));
    await waitFor(() => expect(ipc.called("save_settings")).toHaveLength(2));
    expect(ipc.called("save_settings")[1]).toEqual({ settings: { ...appState().settings, effort: null } });
    expect(select.value).toBe("off");
  });
});
