// Settings → Keyboard: every action with its group and keys; Change records the next combination
// (Escape cancels), saved at once with the settings as stored, only what differs from the
// defaults; the app's keys follow at once; Reset gives the default back; a combination another
// action has is refused with why, and nothing is saved.
import { afterEach, describe, expect, it, vi } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import SettingsPanel from "../lib/components/SettingsPanel.svelte";
import { keymap } from "../lib/keymap.svelte";
import { ACTIONS } from "../lib/shortcuts";
import { keysApp, startSessions } from "./keysApp";
import { appState } from "./live";
import { mockSettings } from "./settingsFixtures";

afterEach(() => {
  vi.restoreAllMocks();
  keymap.set({});
});

const section = () => screen.getByTestId("settings-keyboard");
const rowOf = (action: string) => within(section()).getAllByTestId("shortcut-row").find((r) => r.dataset.action === action)!;
const keysIn = (action: string) => within(rowOf(action)).getByTestId("shortcut-keys").textContent;
const palette = () => screen.queryByTestId("command-palette");

async function openKeyboardSettings() {
  const app = keysApp({ recent: [] });
  await app.user.click(await screen.findByTestId("open-settings"));
  await screen.findByTestId("settings-keyboard");
  return app;
}

describe("Settings → Keyboard", () => {
  it("lists every action with its group and keys", async () => {
    await openKeyboardSettings();
    const rows = within(section()).getAllByTestId("shortcut-row");
    expect(rows.map((r) => r.dataset.action).sort()).toEqual(ACTIONS.map((a) => a.id).sort());
    expect(rowOf("palette.open").dataset.group).toBe("App");
    expect(rowOf("palette.open").textContent).toContain("Open the command palette");
    expect(keysIn("palette.open")).toBe("Ctrl+K");
    expect(keysIn("session.goto.2")).toBe("Alt+2");
    expect(keysIn("approval.jump")).toBe("Ctrl+Shift+A");
    expect(keysIn("terminal.toggle")).toBe("Ctrl+`");
    expect(keysIn("prompt.previous")).toBe("Alt+↑");
    expect(keysIn("changes.toggle")).toBe("None");
    expect(within(rowOf("palette.open")).getByTestId("shortcut-reset")).toHaveProperty("disabled", true);
    expect(screen.getByTestId("settings-nav-keyboard")).toBeTruthy();
  });

  it("records a new combination and saves only it; the new keys open the palette and the old ones do not", async () => {
    const { user, live } = await openKeyboardSettings();
    const record = within(rowOf("palette.open")).getByTestId("shortcut-record");
    await user.click(record);
    expect(record.textContent).toBe("Press keys…");
    expect(record.getAttribute("aria-pressed")).toBe("true");
    await user.keyboard("{Control>}p{/Control}");
    await waitFor(() => expect(live.called("save_settings")).toHaveLength(1));
    expect(live.called("save_settings")[0]).toEqual({ settings: { ...appState().settings, shortcuts: { "palette.open": "Ctrl+P" } } });
    await waitFor(() => expect(keysIn("palette.open")).toBe("Ctrl+P"));
    expect(record.textContent).toBe("Change");
    expect(within(rowOf("palette.open")).getByRole("status").textContent).toBe("Saved.");
    // Recording took the keys: the palette did not open meanwhile.
    expect(palette()).toBeNull();

    await user.keyboard("{Control>}k{/Control}");
    expect(palette()).toBeNull();
    await user.keyboard("{Control>}p{/Control}");
    await waitFor(() => expect(palette()).toBeTruthy());
    await user.keyboard("{Escape}");
    await waitFor(() => expect(palette()).toBeNull());

    // The one Save of the other settings keeps them.
    await user.click(screen.getByTestId("settings-save"));
    await waitFor(() => expect(live.called("save_settings")).toHaveLength(2));
    expect((live.called("save_settings")[1]!.settings as { shortcuts: unknown }).shortcuts).toEqual({ "palette.open": "Ctrl+P" });
  });

  it("Reset removes the override: the default keys work again", async () => {
    const { user, live } = await openKeyboardSettings();
    await user.click(within(rowOf("palette.open")).getByTestId("shortcut-record"));
    await user.keyboard("{Control>}p{/Control}");
    await waitFor(() => expect(keysIn("palette.open")).toBe("Ctrl+P"));

    await user.click(within(rowOf("palette.open")).getByTestId("shortcut-reset"));
    await waitFor(() => expect(live.called("save_settings")).toHaveLength(2));
    expect(live.called("save_settings")[1]).toEqual({ settings: { ...appState().settings, shortcuts: {} } });
    await waitFor(() => expect(keysIn("palette.open")).toBe("Ctrl+K"));
    await user.keyboard("{Control>}k{/Control}");
    await waitFor(() => expect(palette()).toBeTruthy());
  });

  it("refuses a combination another action has, saying which, and saves nothing", async () => {
    const { user, live } = await openKeyboardSettings();
    await user.click(within(rowOf("palette.open")).getByTestId("shortcut-record"));
    await user.keyboard("{Control>}{Shift>}P{/Shift}{/Control}");
    const refusal = await within(rowOf("palette.open")).findByTestId("shortcut-conflict");
    expect(refusal.textContent).toBe("Ctrl+Shift+P is already the keys of “Show or hide the prompts”. Not saved.");
    expect(refusal.getAttribute("role")).toBe("alert");
    expect(keysIn("palette.open")).toBe("Ctrl+K");
    expect(live.called("save_settings")).toEqual([]);
  });

  it("refuses a key without Ctrl, Alt or Meta (it would be typing), and Escape cancels recording", async () => {
    const { user, live } = await openKeyboardSettings();
    const record = within(rowOf("session.new")).getByTestId("shortcut-record");
    await user.click(record);
    await user.keyboard("{Escape}");
    expect(record.textContent).toBe("Change");
    expect(within(rowOf("session.new")).queryByTestId("shortcut-conflict")).toBeNull();

    await user.click(record);
    await user.keyboard("n");
    expect((await within(rowOf("session.new")).findByTestId("shortcut-conflict")).textContent).toBe(
      "N alone is typing: use it with Ctrl, Alt or Meta. Not saved.",
    );
    expect(live.called("save_settings")).toEqual([]);
    expect(keysIn("session.new")).toBe("Ctrl+Shift+N");
  });

  it("gives an action keys it had none of, and the session's screen uses them", async () => {
    const { user, live } = keysApp();
    await startSessions(user, 1);
    await user.click(screen.getByTestId("open-settings"));
    await screen.findByTestId("settings-keyboard");
    await user.click(within(rowOf("changes.toggle")).getByTestId("shortcut-record"));
    await user.keyboard("{Control>}{Alt>}c{/Alt}{/Control}");
    await waitFor(() => expect(keysIn("changes.toggle")).toBe("Ctrl+Alt+C"));
    expect(live.called("save_settings").at(-1)).toEqual({ settings: { ...appState().settings, shortcuts: { "changes.toggle": "Ctrl+Alt+C" } } });
    await user.click(screen.getByTestId("settings-close"));
    await user.keyboard("{Control>}{Alt>}c{/Alt}{/Control}");
    await waitFor(() => expect(screen.getByTestId("changes-panel")).toBeTruthy());
  });

  it("shows a refusal of the engine and keeps the keys as stored", async () => {
    const ipc = mockSettings({
      save_settings: () => {
        throw "the settings file is read-only";
      },
    });
    const user = userEvent.setup();
    render(SettingsPanel, { app: { ...appState(), settings: { ...appState().settings, shortcuts: { "palette.open": "Ctrl+P" } } }, onchanged: vi.fn(), onclose: vi.fn() });
    expect(keysIn("palette.open")).toBe("Ctrl+P");
    await user.click(within(rowOf("palette.open")).getByTestId("shortcut-reset"));
    expect((await screen.findByTestId("shortcut-save-error")).textContent).toBe("Could not save the shortcuts: the settings file is read-only");
    expect(ipc.called("save_settings")).toHaveLength(1);
    expect(keysIn("palette.open")).toBe("Ctrl+P");
  });
});
