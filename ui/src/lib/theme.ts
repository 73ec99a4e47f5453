// The colour theme: the user's choice (system, light, dark) is kept in localStorage and applied
// as `data-theme="light" | "dark"` on <html>, which selects the palette in app.css. "system"
// follows the OS's `prefers-color-scheme`, live.

export type ThemeChoice = "system" | "light" | "dark";
export type Theme = "light" | "dark";

export const THEME_KEY = "nerve.theme";
export const THEME_CHOICES: ThemeChoice[] = ["system", "light", "dark"];

const DARK_QUERY = "(prefers-color-scheme: dark)";

function isChoice(v: unknown): v is ThemeChoice {
  return v === "system" || v === "light" || v === "dark";
}

/** The stored choice; "system" when none (or storage is unavailable). */
export function storedTheme(): ThemeChoice {
  try {
    const v = globalThis.localStorage?.getItem(THEME_KEY);
    return isChoice(v) ? v : "system";
  } catch {
    return "system";
  }
}

function systemQuery(): MediaQueryList | null {
  return typeof globalThis.matchMedia === "function" ? globalThis.matchMedia(DARK_QUERY) : null;
}

/** The theme a choice stands for now. Without a system preference to ask, dark (the app's own). */
export function resolveTheme(choice: ThemeChoice, query: MediaQueryList | null = systemQuery()): Theme {
  if (choice !== "system") return choice;
  return query && !query.matches ? "light" : "dark";
}

let following: { query: MediaQueryList; listener: (e: MediaQueryListEvent) => void } | null = null;

function stopFollowing() {
  if (!following) return;
  following.query.removeEventListener("change", following.listener);
  following = null;
}

/** Applies a choice to the document at once; "system" keeps following the OS until changed. */
export function applyTheme(choice: ThemeChoice) {
  stopFollowing();
  const root = document.documentElement;
  const query = choice === "system" ? systemQuery() : null;
  root.dataset.theme = resolveTheme(choice, query);
  if (query) {
    const listener = (e: MediaQueryListEvent) => {
      root.dataset.theme = e.matches ? "dark" : "light";
    };
    query.addEventListener("change", listener);
    following = { query, listener };
  }
}

/** Stores and applies the user's choice. */
export function setTheme(choice: ThemeChoice) {
  try {
    globalThis.localStorage?.setItem(THEME_KEY, choice);
  } catch {
    // Not stored (storage unavailable): it still applies for this run.
  }
  applyTheme(choice);
}

/** At start-up, before the first paint: the stored choice. */
export function initTheme() {
  applyTheme(storedTheme());
}
