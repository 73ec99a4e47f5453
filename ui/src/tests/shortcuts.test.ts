// The shortcut registry as pure functions: key strings parsed, stored and shown; key presses made
// into combos (digits and the backquote by their place); the user's overrides; two actions never
// sharing keys.
import { describe, expect, it } from "vitest";
import {
  ACTIONS,
  actionFor,
  conflictWith,
  conflicts,
  eventCombo,
  formatCombo,
  gotoIndex,
  keysOf,
  keysText,
  matches,
  parseKeys,
  passesTerminal,
  withKeys,
  withoutKeys,
  type Combo,
} from "../lib/shortcuts";

const combo = (key: string, mods: Partial<Omit<Combo, "key">> = {}): Combo => ({ ctrl: false, alt: false, shift: false, meta: false, ...mods, key });
const key = (init: KeyboardEventInit, target?: EventTarget) => {
  const e = new KeyboardEvent("keydown", { bubbles: true, ...init });
  if (target) Object.defineProperty(e, "target", { value: target });
  return e;
};

describe("Key strings", () => {
  it("parses modifiers in any order and spelling, letters to upper case, and named keys", () => {
    expect(parseKeys("Ctrl+Shift+A", false)).toEqual(combo("A", { ctrl: true, shift: true }));
    expect(parseKeys("shift+control+a", false)).toEqual(combo("A", { ctrl: true, shift: true }));
    expect(parseKeys("Alt+1", false)).toEqual(combo("1", { alt: true }));
    expect(parseKeys("Ctrl+,", false)).toEqual(combo(",", { ctrl: true }));
    expect(parseKeys("Ctrl+`", false)).toEqual(combo("`", { ctrl: true }));
    expect(parseKeys("Ctrl++", false)).toEqual(combo("+", { ctrl: true }));
    expect(parseKeys("Alt+ArrowUp", false)).toEqual(combo("Up", { alt: true }));
    expect(parseKeys("Ctrl+Shift+Tab", false)).toEqual(combo("Tab", { ctrl: true, shift: true }));
    expect(parseKeys("Cmd+Option+k", true)).toEqual(combo("K", { meta: true, alt: true }));
    expect(parseKeys("F5", false)).toEqual(combo("F5"));
  });

  it("reads Mod as Ctrl on Linux and Windows, Cmd on macOS", () => {
    expect(parseKeys("Mod+K", false)).toEqual(combo("K", { ctrl: true }));
    expect(parseKeys("Mod+K", true)).toEqual(combo("K", { meta: true }));
  });

  it("refuses an unknown modifier or key, and a string with no key", () => {
    expect(parseKeys("Hyper+K", false)).toBeNull();
    expect(parseKeys("Ctrl+Banana", false)).toBeNull();
    expect(parseKeys("Ctrl+", false)).toBeNull();
    expect(parseKeys("", false)).toBeNull();
  });

  it("stores and shows a combo in one order, and reads back what it stored", () => {
    for (const text of ["Ctrl+Shift+A", "Alt+1", "Ctrl+,", "Ctrl+`", "Ctrl++", "Ctrl+Alt+Shift+Meta+F12", "Alt+Up", "Ctrl+Shift+Tab"]) {
      const parsed = parseKeys(text, false)!;
      expect(keysText(parsed)).toBe(text);
      expect(parseKeys(keysText(parsed), false)).toEqual(parsed);
    }
    expect(keysText(parseKeys("shift+ctrl+a", false)!)).toBe("Ctrl+Shift+A");
    expect(formatCombo(parseKeys("Alt+Up", false)!, false)).toBe("Alt+↑");
    expect(formatCombo(parseKeys("Mod+Shift+P", false)!, false)).toBe("Ctrl+Shift+P");
    expect(formatCombo(parseKeys("Mod+Shift+P", true)!, true)).toBe("⇧⌘P");
    expect(formatCombo(parseKeys("Ctrl+`", true)!, true)).toBe("⌃`");
  });
});

describe("Key presses", () => {
  it("names letters by the character, upper case whatever Shift does", () => {
    expect(eventCombo(key({ key: "k", code: "KeyK", ctrlKey: true }))).toEqual(combo("K", { ctrl: true }));
    expect(eventCombo(key({ key: "A", code: "KeyA", ctrlKey: true, shiftKey: true }))).toEqual(combo("A", { ctrl: true, shift: true }));
    // A Cyrillic layout, or Option on a Mac, prints another letter: the key's place names it.
    expect(eventCombo(key({ key: "а", code: "KeyF", ctrlKey: true }))).toEqual(combo("F", { ctrl: true }));
    expect(eventCombo(key({ key: "π", code: "KeyP", altKey: true }))).toEqual(combo("P", { alt: true }));
  });

  it("names digits by their place: Alt+1 is Alt+1 even when it prints ¡, and Shift+1 is not !", () => {
    expect(eventCombo(key({ key: "¡", code: "Digit1", altKey: true }))).toEqual(combo("1", { alt: true }));
    expect(eventCombo(key({ key: "1", code: "Digit1", altKey: true }))).toEqual(combo("1", { alt: true }));
    expect(eventCombo(key({ key: "!", code: "Digit1", ctrlKey: true, shiftKey: true }))).toEqual(combo("1", { ctrl: true, shift: true }));
  });

  it("names the backquote by its place (a dead key on many layouts) and punctuation changed by Shift", () => {
    expect(eventCombo(key({ key: "`", code: "Backquote", ctrlKey: true }))).toEqual(combo("`", { ctrl: true }));
    expect(eventCombo(key({ key: "Dead", code: "Backquote", ctrlKey: true }))).toEqual(combo("`", { ctrl: true }));
    expect(eventCombo(key({ key: ",", code: "Comma", ctrlKey: true }))).toEqual(combo(",", { ctrl: true }));
    expect(eventCombo(key({ key: "<", code: "Comma", ctrlKey: true, shiftKey: true }))).toEqual(combo(",", { ctrl: true, shift: true }));
  });

  it("names other keys by name, and a modifier alone is no combo yet", () => {
    expect(eventCombo(key({ key: "ArrowUp", code: "ArrowUp", altKey: true }))).toEqual(combo("Up", { alt: true }));
    expect(eventCombo(key({ key: "Tab", code: "Tab", ctrlKey: true, shiftKey: true }))).toEqual(combo("Tab", { ctrl: true, shift: true }));
    expect(eventCombo(key({ key: " ", code: "Space", ctrlKey: true }))).toEqual(combo("Space", { ctrl: true }));
    expect(eventCombo(key({ key: "Control", code: "ControlLeft", ctrlKey: true }))).toBeNull();
    expect(eventCombo(key({ key: "Shift", code: "ShiftLeft", shiftKey: true }))).toBeNull();
  });

  it("matches an action's default keys, and exactly them (no extra modifier)", () => {
    expect(matches(key({ key: "k", code: "KeyK", ctrlKey: true }), "palette.open", {}, false)).toBe(true);
    expect(matches(key({ key: "k", code: "KeyK", metaKey: true }), "palette.open", {}, false)).toBe(false);
    expect(matches(key({ key: "k", code: "KeyK", metaKey: true }), "palette.open", {}, true)).toBe(true);
    expect(matches(key({ key: "K", code: "KeyK", ctrlKey: true, shiftKey: true }), "palette.open", {}, false)).toBe(false);
    expect(matches(key({ key: "Tab", code: "Tab", ctrlKey: true }), "session.next", {}, false)).toBe(true);
    expect(matches(key({ key: "Tab", code: "Tab", ctrlKey: true, shiftKey: true }), "session.previous", {}, false)).toBe(true);
    expect(matches(key({ key: "¡", code: "Digit1", altKey: true }), "session.goto.1", {}, true)).toBe(true);
    expect(matches(key({ key: "A", code: "KeyA", ctrlKey: true, shiftKey: true }), "approval.jump", {}, false)).toBe(true);
    expect(matches(key({ key: "`", code: "Backquote", ctrlKey: true }), "terminal.toggle", {}, false)).toBe(true);
    // Ctrl on a Mac too, as it always was.
    expect(matches(key({ key: "`", code: "Backquote", ctrlKey: true }), "terminal.toggle", {}, true)).toBe(true);
    expect(matches(key({ key: ",", code: "Comma", ctrlKey: true }), "settings.open", {}, false)).toBe(true);
  });

  it("finds the action of a scope a key press is, but leaves plain typing in a text field to the field", () => {
    expect(actionFor(key({ key: "k", code: "KeyK", ctrlKey: true }), "app", {}, false)).toBe("palette.open");
    expect(actionFor(key({ key: "k", code: "KeyK", ctrlKey: true }), "session", {}, false)).toBeNull();
    expect(actionFor(key({ key: "f", code: "KeyF", ctrlKey: true }), "session", {}, false)).toBe("find.open");
    expect(actionFor(key({ key: "3", code: "Digit3", altKey: true }), "app", {}, false)).toBe("session.goto.3");
    const field = document.createElement("textarea");
    const overrides = { "settings.open": "F2", "palette.open": "Shift+K" };
    // A combo with a command modifier is taken in a field too; a plain key there is typing.
    expect(actionFor(key({ key: "3", code: "Digit3", altKey: true }, field), "app", overrides, false)).toBe("session.goto.3");
    expect(actionFor(key({ key: "K", code: "KeyK", shiftKey: true }, field), "app", overrides, false)).toBeNull();
    expect(actionFor(key({ key: "K", code: "KeyK", shiftKey: true }), "app", overrides, false)).toBe("palette.open");
    expect(actionFor(key({ key: "F2", code: "F2" }, field), "app", overrides, false)).toBe("settings.open");
  });

  it("lets the terminal pass on the panel's key and the session keys, not a shell's Ctrl+K", () => {
    expect(passesTerminal(key({ key: "`", code: "Backquote", ctrlKey: true }), {}, false)).toBe(true);
    expect(passesTerminal(key({ key: "Tab", code: "Tab", ctrlKey: true }), {}, false)).toBe(true);
    expect(passesTerminal(key({ key: "k", code: "KeyK", ctrlKey: true }), {}, false)).toBe(false);
    expect(passesTerminal(key({ key: "c", code: "KeyC", ctrlKey: true }), {}, false)).toBe(false);
  });

  it("numbers the session keys from one", () => {
    expect(gotoIndex("session.goto.1")).toBe(0);
    expect(gotoIndex("session.goto.9")).toBe(8);
    expect(gotoIndex("session.next")).toBeNull();
  });
});

describe("The user's overrides", () => {
  it("replace an action's default keys; an action not named keeps its own; a broken one falls back", () => {
    const overrides = { "palette.open": "Ctrl+P", "settings.open": "not keys", "outputs.open": "Ctrl+Alt+O" };
    expect(keysOf("palette.open", overrides, false)).toEqual(combo("P", { ctrl: true }));
    expect(keysOf("session.new", overrides, false)).toEqual(combo("N", { ctrl: true, shift: true }));
    expect(keysOf("settings.open", overrides, false)).toEqual(combo(",", { ctrl: true }));
    // An action with no default keys can be given some; "" takes an action's keys away.
    expect(keysOf("outputs.open", {}, false)).toBeNull();
    expect(keysOf("outputs.open", overrides, false)).toEqual(combo("O", { ctrl: true, alt: true }));
    expect(keysOf("find.open", { "find.open": "" }, false)).toBeNull();
    expect(matches(key({ key: "p", code: "KeyP", ctrlKey: true }), "palette.open", overrides, false)).toBe(true);
    expect(matches(key({ key: "k", code: "KeyK", ctrlKey: true }), "palette.open", overrides, false)).toBe(false);
  });

  it("store only what differs from the defaults", () => {
    const p = parseKeys("Ctrl+P", false)!;
    expect(withKeys({}, "palette.open", p, false)).toEqual({ "palette.open": "Ctrl+P" });
    expect(withKeys({ "palette.open": "Ctrl+P" }, "palette.open", parseKeys("Ctrl+K", false)!, false)).toEqual({});
    expect(withoutKeys({ "palette.open": "Ctrl+P", "session.new": "Ctrl+Alt+N" }, "palette.open")).toEqual({ "session.new": "Ctrl+Alt+N" });
  });

  it("never give two actions the same keys: the other one is named", () => {
    expect(conflicts({}, false)).toEqual([]);
    expect(conflicts({}, true)).toEqual([]);
    expect(conflictWith("palette.open", parseKeys("Ctrl+Shift+P", false)!, {}, false)).toBe("prompts.toggle");
    expect(conflictWith("palette.open", parseKeys("Ctrl+K", false)!, {}, false)).toBeNull();
    expect(conflictWith("palette.open", parseKeys("Ctrl+P", false)!, {}, false)).toBeNull();
    // A changed action frees its default keys and takes the new ones.
    expect(conflictWith("session.new", parseKeys("Ctrl+K", false)!, { "palette.open": "Ctrl+P" }, false)).toBeNull();
    expect(conflictWith("session.new", parseKeys("Ctrl+P", false)!, { "palette.open": "Ctrl+P" }, false)).toBe("palette.open");
    expect(conflicts({ "palette.open": "Ctrl+F" }, false)).toEqual([["palette.open", "find.open"]]);
  });

  it("every default parses, and every action has a label and a group", () => {
    for (const action of ACTIONS) {
      if (action.keys !== null) expect(parseKeys(action.keys, false), action.id).not.toBeNull();
      expect(action.label).not.toBe("");
    }
    expect(new Set(ACTIONS.map((a) => a.id)).size).toBe(ACTIONS.length);
  });
});
