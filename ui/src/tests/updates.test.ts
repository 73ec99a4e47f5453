// The release feed's answers in words, and the check made once at start: only with a feed set,
// only a newer release told of, a failure kept for Settings, dismissed for the run.
import { describe, expect, it, vi } from "vitest";
import type { AppSettings } from "../bindings/AppSettings";
import type { UpdateStatus } from "../bindings/UpdateStatus";
import { StartupUpdate, updateSentence, type NewerRelease } from "../lib/updates.svelte";
import { appState } from "./live";

const FEED = "https://nerve.example.com/latest.json";
const withFeed = (update_feed_url: string | null): AppSettings => ({ ...appState().settings, update_feed_url });
const newer: NewerRelease = {
  state: "newer",
  current: "0.1.0",
  latest: "0.2.0",
  url: "https://nerve.example.com/releases/0.2.0",
  notes: "Colours in command output.",
  how: "sudo apt update && sudo apt upgrade nerve",
};

describe("updateSentence", () => {
  it("says each answer in words", () => {
    expect(updateSentence(newer)).toBe("Nerve 0.2.0 is available (you have 0.1.0).");
    expect(updateSentence({ state: "current", version: "0.1.0" })).toBe("You have the newest version (0.1.0).");
    expect(updateSentence({ state: "off" })).toBe("No release feed is set.");
    expect(updateSentence({ state: "failed", message: "the feed answered 404" })).toBe("Could not check: the feed answered 404");
  });
});

describe("the check at start", () => {
  it("asks nothing when no feed is set", async () => {
    const check = vi.fn<() => Promise<UpdateStatus>>();
    const update = new StartupUpdate(check);
    await update.checkOnce(withFeed(null));
    expect(check).not.toHaveBeenCalled();
    expect(update.release).toBeNull();
  });

  it("tells of a newer release, once per run, until dismissed", async () => {
    const check = vi.fn<() => Promise<UpdateStatus>>().mockResolvedValue(newer);
    const update = new StartupUpdate(check);
    await update.checkOnce(withFeed(FEED));
    expect(update.release).toEqual(newer);
    await update.checkOnce(withFeed(FEED));
    expect(check).toHaveBeenCalledOnce();
    update.dismiss();
    expect(update.release).toBeNull();
  });

  it("says nothing when up to date, off, failed or unreachable", async () => {
    const answers: (UpdateStatus | Error)[] = [
      { state: "current", version: "0.2.0" },
      { state: "off" },
      { state: "failed", message: "no network" },
      new Error("the shell did not answer"),
    ];
    for (const answer of answers) {
      const update = new StartupUpdate(() => (answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer)));
      await update.checkOnce(withFeed(FEED));
      expect(update.release).toBeNull();
    }
  });
});
