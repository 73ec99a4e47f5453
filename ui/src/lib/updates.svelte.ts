// Whether a newer Nerve is out, from the release feed the settings name (`update_feed_url`; the
// shell reads it): said in words in Settings when asked, and once at start when there is one.
import type { AppSettings } from "../bindings/AppSettings";
import type { UpdateStatus } from "../bindings/UpdateStatus";
import { checkForUpdate } from "./ipc";

/** The answer that there is a newer release. */
export type NewerRelease = Extract<UpdateStatus, { state: "newer" }>;

/** The answer in one sentence (a newer release's `how` and link go beside it). */
export function updateSentence(status: UpdateStatus): string {
  switch (status.state) {
    case "off":
      return "No release feed is set.";
    case "current":
      return `You have the newest version (${status.version}).`;
    case "newer":
      return `Nerve ${status.latest} is available (you have ${status.current}).`;
    case "failed":
      return `Could not check: ${status.message}`;
  }
}

/**
 * The check made once after start: only when the settings name a feed, and only a newer release
 * is worth a word then. A feed that cannot be read at start is not the user's concern until they
 * ask (Settings says why); nor is being up to date.
 */
export class StartupUpdate {
  /** The newer release to tell of; null when none, or once dismissed. */
  release: NewerRelease | null = $state(null);
  private asked = false;
  private readonly check: () => Promise<UpdateStatus>;

  constructor(check: () => Promise<UpdateStatus> = checkForUpdate) {
    this.check = check;
  }

  /** Checks with the settings the app started with; later calls do nothing (once per run). */
  async checkOnce(settings: AppSettings): Promise<void> {
    if (this.asked) return;
    this.asked = true;
    if (!settings.update_feed_url) return;
    let status: UpdateStatus;
    try {
      status = await this.check();
    } catch {
      return; // as a failed check: said in Settings when the user asks
    }
    if (status.state === "newer") this.release = status;
  }

  /** The user has read it: gone for this run. */
  dismiss() {
    this.release = null;
  }
}
