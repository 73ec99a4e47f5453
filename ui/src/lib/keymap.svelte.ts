// The shortcuts in effect: the user's overrides (`AppSettings.shortcuts`) over the defaults of
// shortcuts.ts, in one reactive place. App sets them from the app state it loads; Settings →
// Keyboard sets them after saving. Every key handler (the App's, a session screen's, the
// terminal's) asks here, so a changed shortcut works at once everywhere.
import {
  actionFor,
  formatCombo,
  isMac,
  keysOf,
  matches,
  passesTerminal,
  type ActionId,
  type Combo,
  type Overrides,
  type ShortcutScope,
} from "./shortcuts";

class Keymap {
  /** Action id → keys, as stored (only what differs from the defaults). */
  overrides: Overrides = $state.raw({});
  readonly mac = isMac();

  set(overrides: Overrides) {
    this.overrides = { ...overrides };
  }

  keys(id: ActionId): Combo | null {
    return keysOf(id, this.overrides, this.mac);
  }

  /** The action's keys as shown ("Ctrl+K", "⌘K"), "" when it has none. */
  label(id: ActionId): string {
    const keys = this.keys(id);
    return keys ? formatCombo(keys, this.mac) : "";
  }

  matches(e: KeyboardEvent, id: ActionId): boolean {
    return matches(e, id, this.overrides, this.mac);
  }

  actionFor(e: KeyboardEvent, scope: ShortcutScope): ActionId | null {
    return actionFor(e, scope, this.overrides, this.mac);
  }

  passesTerminal(e: KeyboardEvent): boolean {
    return passesTerminal(e, this.overrides, this.mac);
  }
}

export const keymap = new Keymap();
