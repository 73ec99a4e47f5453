// The colour theme: chosen in Settings, applied at once as data-theme on <html>, kept in
// localStorage; "system" follows prefers-color-scheme while it changes.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { render, screen } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import SettingsPanel from "../lib/components/SettingsPanel.svelte";
import { initTheme, THEME_KEY } from "../lib/theme";
import { appState } from "./live";

/** A matchMedia whose "(prefers-color-scheme: dark)" answer the test sets and changes. */
function mockSystem(dark: boolean) {
  const listeners = new Set<(e: MediaQueryListEvent) => void>();
  const query = {
    matches: dark,
    media: "(prefers-color-scheme: dark)",
    addEventListener: (_: string, l: (e: MediaQueryListEvent) => void) => listeners.add(l),
    removeEventListener: (_: string, l: (e: MediaQueryListEvent) => void) => listeners.delete(l),
  };
  const matchMedia = vi.fn(() => query as unknown as MediaQueryList);
  vi.stubGlobal("matchMedia", matchMedia);
  return {
    matchMedia,
    listeners,
    set(value: boolean) {
      query.matches = value;
      for (const l of [...listeners]) l({ matches: value } as MediaQueryListEvent);
    },
  };
}

const theme = () => document.documentElement.dataset.theme;

describe("theme", () => {
  beforeEach(() => {
    localStorage.clear();
    delete document.documentElement.dataset.theme;
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    localStorage.clear();
  });

  it("applies the choice from Settings at once and keeps it", async () => {
    mockSystem(true);
    const user = userEvent.setup();
    render(SettingsPanel, { app: appState(), onchanged: vi.fn(), onclose: vi.fn() });
    const select = screen.getByTestId("settings-theme") as HTMLSelectElement;
    expect(select.value).toBe("system");
    expect([...select.options].map((o) => o.value)).toEqual(["system", "light", "dark"]);

    await user.selectOptions(select, "light");
    expect(theme()).toBe("light");
    expect(localStorage.getItem(THEME_KEY)).toBe("light");
    await user.selectOptions(select, "dark");
    expect(theme()).toBe("dark");
    expect(localStorage.getItem(THEME_KEY)).toBe("dark");

    // The next start (and the next Settings) begin from the stored choice.
    delete document.documentElement.dataset.theme;
    initTheme();
    expect(theme()).toBe("dark");
    render(SettingsPanel, { app: appState(), onchanged: vi.fn(), onclose: vi.fn() });
    expect((screen.getAllByTestId("settings-theme")[1] as HTMLSelectElement).value).toBe("dark");
  });

  it("follows the system's preference live while set to system, and stops when not", async () => {
    const system = mockSystem(false);
    const user = userEvent.setup();
    localStorage.setItem(THEME_KEY, "dark");
    initTheme();
    expect(theme()).toBe("dark");
    render(SettingsPanel, { app: appState(), onchanged: vi.fn(), onclose: vi.fn() });
    const select = screen.getByTestId("settings-theme") as HTMLSelectElement;

    await user.selectOptions(select, "system");
    expect(system.matchMedia).toHaveBeenCalledWith("(prefers-color-scheme: dark)");
    expect(theme()).toBe("light");
    expect(localStorage.getItem(THEME_KEY)).toBe("system");
    system.set(true);
    expect(theme()).toBe("dark");
    system.set(false);
    expect(theme()).toBe("light");

    await user.selectOptions(select, "dark");
    expect(system.listeners.size).toBe(0);
    system.set(false);
    expect(theme()).toBe("dark");
  });

  it("falls back to system, and to the dark palette without a system answer", () => {
    localStorage.setItem(THEME_KEY, "purple");
    initTheme();
    expect(theme()).toBe("dark");
  });
});
