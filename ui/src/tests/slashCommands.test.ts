import { describe, expect, it } from "vitest";
import type { SlashCommand } from "../bindings/SlashCommand";
import { MODES, commandQuery, completeCommand, filterCommands, modeNamed, parseBuiltin } from "../lib/slashCommands";

const cmd = (name: string, source: SlashCommand["source"] = "builtin"): SlashCommand => ({ name, description: "", argument_hint: null, source });

describe("slash commands", () => {
  it("knows the name being typed only while the caret is in the prompt's first word", () => {
    expect(commandQuery("/", 1)).toBe("");
    expect(commandQuery("/comp", 5)).toBe("comp");
    expect(commandQuery("/comp", 3)).toBe("comp");
    expect(commandQuery("/compact be brief", 8)).toBe("compact");
    expect(commandQuery("/compact be brief", 9)).toBeNull();
    expect(commandQuery(" /compact", 9)).toBeNull();
    expect(commandQuery("see /compact", 12)).toBeNull();
    expect(commandQuery("/x", 0)).toBeNull();
  });

  it("puts names starting with the text first, then names containing it, each in the engine's order", () => {
    const all = [cmd("compact"), cmd("clear"), cmd("rewind"), cmd("model"), cmd("mode"), cmd("pr-review", "project"), cmd("review", "user")];
    expect(filterCommands(all, "re").map((c) => c.name)).toEqual(["rewind", "review", "pr-review"]);
    expect(filterCommands(all, "MO").map((c) => c.name)).toEqual(["model", "mode"]);
    expect(filterCommands(all, "").map((c) => c.name)).toEqual(all.map((c) => c.name));
    expect(filterCommands(all, "zz")).toEqual([]);
    // A name typed in full comes first even when the engine lists a longer one before it.
    const both = [cmd("review-all", "user"), cmd("review", "project")];
    expect(filterCommands(both, "review").map((c) => c.name)).toEqual(["review", "review-all"]);
  });

  it("completes the name with one space after it and keeps the rest", () => {
    expect(completeCommand("/rev", "review")).toEqual({ text: "/review ", caret: 8 });
    expect(completeCommand("/rev src/a.rs", "review")).toEqual({ text: "/review src/a.rs", caret: 8 });
    expect(completeCommand("/revXY", "review")).toEqual({ text: "/review ", caret: 8 });
  });

  it("recognises the built-ins with their arguments; anything else is sent", () => {
    expect(parseBuiltin("/compact")).toEqual({ name: "compact", instructions: null });
    expect(parseBuiltin("/compact  keep the API notes\nand the plan ")).toEqual({ name: "compact", instructions: "keep the API notes\nand the plan" });
    expect(parseBuiltin("/clear")).toEqual({ name: "clear" });
    expect(parseBuiltin("/rewind")).toEqual({ name: "rewind" });
    expect(parseBuiltin("/model claude-x")).toEqual({ name: "model", model: "claude-x" });
    expect(parseBuiltin("/mode plan")).toEqual({ name: "mode", mode: "plan" });
    expect(parseBuiltin("/mode")).toEqual({ name: "mode", mode: null });
    expect(parseBuiltin("/memory")).toEqual({ name: "memory" });
    expect(parseBuiltin("/review src")).toBeNull();
    expect(parseBuiltin("/compacting")).toBeNull();
    expect(parseBuiltin("compact")).toBeNull();
    expect(parseBuiltin("/usr/bin/ls fails")).toBeNull();
  });

  it("takes the engine's mode names in any case, but not the engine's own", () => {
    expect(MODES).toEqual(["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto"]);
    expect(modeNamed("acceptedits")).toBe("acceptEdits");
    expect(modeNamed("plan")).toBe("plan");
    expect(modeNamed("bubble")).toBeNull();
    expect(modeNamed("yolo")).toBeNull();
  });
});
