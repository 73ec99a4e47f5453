// Settings → About & diagnostics: what a bug report needs as the shell gathers it (copied whole,
// the log folder opened), and the release feed: its address saved with the settings as stored
// (blank is off) and a check on request, its answer said in words.
import { afterEach, describe, expect, it, vi } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import type { AppSettings } from "../bindings/AppSettings";
import type { Diagnostics } from "../bindings/Diagnostics";
import type { UpdateStatus } from "../bindings/UpdateStatus";
import SettingsPanel from "../lib/components/SettingsPanel.svelte";
import { appState } from "./live";
import { appWith, mockSettings, type Handler } from "./settingsFixtures";

const FEED = "https://nerve.example.com/latest.json";
const REPORT = "Nerve 0.1.0\nOS: Ubuntu 24.04 (Linux 6.8, x86_64)\nWebKitGTK 2.44.1\nSandbox: works (bubblewrap 0.9)";
const diagnostics: Diagnostics = {
  version: "0.1.0",
  os: "Ubuntu 24.04 (Linux 6.8, x86_64)",
  webkitgtk: "2.44.1",
  sandbox: "works (bubblewrap 0.9)",
  settings_sources: ["user: /home/me/.nerve/settings.json", "app: /home/me/.local/share/nerve/desktop.json"],
  log_dir: "/home/me/.local/state/nerve/logs",
  report: REPORT,
};
const newer: UpdateStatus = {
  state: "newer",
  current: "0.1.0",
  latest: "0.2.0",
  url: "https://nerve.example.com/releases/0.2.0",
  notes: "Colours in command output.",
  how: "sudo apt update && sudo apt upgrade nerve",
};

let writeText: ReturnType<typeof vi.fn<(text: string) => Promise<void>>>;
afterEach(() => Reflect.deleteProperty(navigator, "clipboard"));

/** The panel with the engine's answers; save_settings stores what it is given (trimmed). */
function about(handlers: Record<string, Handler> = {}, settings: Partial<AppSettings> = {}) {
  const ipc = mockSettings({
    diagnostics: () => diagnostics,
    save_settings: (args) => {
      const given = args.settings as AppSettings;
      return { ...given, update_feed_url: given.update_feed_url?.trim() || null };
    },
    ...handlers,
  });
  const user = userEvent.setup();
  writeText = vi.fn<(text: string) => Promise<void>>().mockResolvedValue(undefined);
  Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
  const onchanged = vi.fn();
  render(SettingsPanel, { app: appWith({ settings: { ...appState().settings, ...settings } }), onchanged, onclose: vi.fn(), initialSection: "about" });
  return { ...ipc, user, onchanged };
}

const section = () => screen.getByTestId("settings-section-about");
const feedField = () => screen.getByTestId("update-feed-url") as HTMLInputElement;

describe("Settings → About & diagnostics", () => {
  it("is listed with the other sections", () => {
    about();
    expect(screen.getByTestId("settings-nav-about").textContent).toBe("About & diagnostics");
    expect(within(section()).getByRole("heading", { level: 3 }).textContent).toBe("About & diagnostics");
    expect(within(section()).getByRole("heading", { level: 4 }).textContent).toBe("Updates");
  });

  it("shows the diagnostics, copies the report and opens the log folder", async () => {
    const { user, called } = about();
    const report = await screen.findByTestId("diagnostics-report");
    for (const shown of ["0.1.0", "Ubuntu 24.04 (Linux 6.8, x86_64)", "2.44.1", "works (bubblewrap 0.9)", "user: /home/me/.nerve/settings.json", "/home/me/.local/state/nerve/logs"]) {
      expect(report.textContent).toContain(shown);
    }
    await user.click(screen.getByTestId("copy-diagnostics"));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(REPORT));
    await user.click(screen.getByTestId("open-log-folder"));
    expect(called("open_log_folder")).toEqual([{}]);
  });

  it("says why the diagnostics or the log folder could not be had", async () => {
    let fail = true;
    const { user } = about({
      diagnostics: () => {
        if (fail) throw "the sandbox probe timed out";
        return diagnostics;
      },
      open_log_folder: () => {
        throw "no file manager answered";
      },
    });
    const alert = await within(section()).findByRole("alert");
    expect(alert.textContent).toContain("Could not gather the diagnostics: the sandbox probe timed out");
    fail = false;
    await user.click(within(alert).getByRole("button", { name: "Retry" }));
    await screen.findByTestId("diagnostics-report");
    await user.click(screen.getByTestId("open-log-folder"));
    expect((await within(section()).findByRole("alert")).textContent).toBe("Could not open the log folder: no file manager answered");
  });
});

describe("the release feed", () => {
  it("saves the address with the settings as stored, and blank as none", async () => {
    const { user, called, onchanged } = about({}, { model: "claude-big", sidebar_collapsed: true });
    expect(feedField().value).toBe("");
    await user.type(feedField(), `  ${FEED} `);
    await user.click(screen.getByTestId("update-feed-save"));
    await waitFor(() => expect(called("save_settings")).toHaveLength(1));
    expect(called("save_settings")[0]).toEqual({ settings: { ...appState().settings, model: "claude-big", sidebar_collapsed: true, update_feed_url: FEED } });
    expect(await within(section()).findByText("Saved.")).toBeTruthy();
    expect(feedField().value).toBe(FEED);
    expect(onchanged).toHaveBeenCalledOnce();

    await user.clear(feedField());
    await user.click(screen.getByTestId("update-feed-save"));
    await waitFor(() => expect(called("save_settings")).toHaveLength(2));
    expect((called("save_settings")[1]!.settings as AppSettings).update_feed_url).toBeNull();
  });

  it("shows the engine's refusal of an address", async () => {
    const { user } = about({
      save_settings: () => {
        throw "the release feed `ftp://x` is not an http or https URL";
      },
    });
    await user.type(feedField(), "ftp://x");
    await user.click(screen.getByTestId("update-feed-save"));
    expect((await within(section()).findByRole("alert")).textContent).toBe(
      "Could not save the release feed: the release feed `ftp://x` is not an http or https URL",
    );
  });

  it("says a newer release in words, how to get it, and opens its page in the browser", async () => {
    const { user, called } = about({ check_for_update: () => newer }, { update_feed_url: FEED });
    expect(feedField().value).toBe(FEED);
    await user.click(screen.getByTestId("check-updates"));
    const status = await screen.findByTestId("update-status");
    expect(status.dataset.state).toBe("newer");
    expect(within(status).getByTestId("update-sentence").textContent).toBe("Nerve 0.2.0 is available (you have 0.1.0).");
    expect(within(status).getByTestId("update-how").textContent).toBe("sudo apt update && sudo apt upgrade nerve");
    expect(screen.getByTestId("update-notes").textContent).toBe("Colours in command output.");
    await user.click(within(status).getByTestId("update-link"));
    expect(called("open_link")).toEqual([{ url: "https://nerve.example.com/releases/0.2.0" }]);
    // The saved address is checked as it is: nothing saved first.
    expect(called("save_settings")).toEqual([]);
  });

  it("says when it is current, off or could not check", async () => {
    const answers: UpdateStatus[] = [{ state: "current", version: "0.1.0" }, { state: "off" }, { state: "failed", message: "the feed answered 404" }];
    let answer = 0;
    const { user } = about({ check_for_update: () => answers[answer++] }, { update_feed_url: FEED });
    const sentence = async () => {
      await user.click(screen.getByTestId("check-updates"));
      return (await screen.findByTestId("update-sentence")).textContent;
    };
    expect(await sentence()).toBe("You have the newest version (0.1.0).");
    expect(await sentence()).toBe("No release feed is set.");
    expect(await sentence()).toBe("Could not check: the feed answered 404");
    expect(screen.getByTestId("update-status").dataset.state).toBe("failed");
    expect(screen.queryByTestId("update-link")).toBeNull();
  });

  it("saves an edited address before checking it, and says a failure to ask as a failed check", async () => {
    const { user, called } = about({
      check_for_update: () => {
        throw "the shell could not read the feed";
      },
    });
    await user.type(feedField(), FEED);
    await user.click(screen.getByTestId("check-updates"));
    expect((await screen.findByTestId("update-sentence")).textContent).toBe("Could not check: the shell could not read the feed");
    expect((called("save_settings")[0]!.settings as AppSettings).update_feed_url).toBe(FEED);
    expect(called("check_for_update")).toHaveLength(1);
  });
});
