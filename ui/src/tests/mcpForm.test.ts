// The MCP server form's values: arguments typed on one line, split like a shell would (nothing
// expanded) and joined back for an edit so that splitting again gives the same words; the checks
// made before anything is sent; an edit prefilled from the engine's spec.
import { describe, expect, it } from "vitest";
import { joinWords, splitWords } from "../lib/shellWords";
import { draftFromSpec, emptyDraft, newPair, specFromDraft } from "../lib/mcpForm";

const words = (line: string) => {
  const split = splitWords(line);
  if (!split.ok) throw new Error(split.error);
  return split.words;
};

describe("splitWords", () => {
  it("splits on any run of whitespace and drops it at the ends", () => {
    expect(words("")).toEqual([]);
    expect(words("   ")).toEqual([]);
    expect(words("  -y   @scope/server\t--port 3000 ")).toEqual(["-y", "@scope/server", "--port", "3000"]);
  });

  it("keeps quoted spaces together and joins quoted parts with what touches them", () => {
    expect(words('--root "/home/me/My Notes" --verbose')).toEqual(["--root", "/home/me/My Notes", "--verbose"]);
    expect(words("--title 'My Kit'")).toEqual(["--title", "My Kit"]);
    expect(words('--name="two words"')).toEqual(["--name=two words"]);
    expect(words(`'it'"'"'s'`)).toEqual(["it's"]);
    expect(words(`"" ''`)).toEqual(["", ""]);
  });

  it("leaves ${VAR} and everything inside single quotes as typed", () => {
    expect(words("--token ${TOKEN} --dir ${DIR:-/tmp}")).toEqual(["--token", "${TOKEN}", "--dir", "${DIR:-/tmp}"]);
    expect(words(`'a "b" \\c'`)).toEqual(['a "b" \\c']);
  });

  it("takes a backslash as an escape only before whitespace, a quote or a backslash", () => {
    expect(words("My\\ Notes")).toEqual(["My Notes"]);
    expect(words('say \\"hi\\"')).toEqual(["say", '"hi"']);
    expect(words("a\\\\b")).toEqual(["a\\b"]);
    // A Windows path needs no doubling.
    expect(words("C:\\Users\\me\\server.js")).toEqual(["C:\\Users\\me\\server.js"]);
    expect(words('"C:\\Program Files\\kit" "say \\"hi\\""')).toEqual(["C:\\Program Files\\kit", 'say "hi"']);
  });

  it("refuses an unclosed quote", () => {
    expect(splitWords('--root "/home/me')).toEqual({ ok: false, error: "The arguments have an unclosed double quote." });
    expect(splitWords("it's")).toEqual({ ok: false, error: "The arguments have an unclosed single quote." });
  });
});

describe("joinWords", () => {
  it("quotes only what needs it", () => {
    expect(joinWords(["-y", "@scope/server", "${TOKEN}"])).toBe("-y @scope/server ${TOKEN}");
    expect(joinWords(["--title", "My Kit", ""])).toBe("--title 'My Kit' ''");
    expect(joinWords(["it's here"])).toBe('"it\'s here"');
  });

  it("gives back the same words when split again", () => {
    const samples = [
      ["node", "server.js"],
      ["--root", "/home/me/My Notes", "--msg", "it's \"quoted\""],
      ["C:\\Users\\me\\kit.js", "C:\\Program Files\\x", "a\\\\b", "back\\"],
      ["", "  ", "\t", "'", '"', "\\"],
    ];
    for (const sample of samples) expect(words(joinWords(sample))).toEqual(sample);
  });
});

describe("the server form's checks", () => {
  const stdio = { ...emptyDraft(), name: "kit", command: "node" };

  it("builds a stdio spec: arguments split, empty rows dropped, ${VAR} kept", () => {
    const draft = { ...stdio, args: 'kit.js --title "My Kit"', env: [newPair("KIT_TOKEN", "${KIT_TOKEN}"), newPair("", "")] };
    expect(specFromDraft(draft)).toEqual({ ok: true, spec: { type: "stdio", command: "node", args: ["kit.js", "--title", "My Kit"], env: { KIT_TOKEN: "${KIT_TOKEN}" } } });
  });

  it("builds an HTTP or SSE spec with its headers", () => {
    const draft = { ...emptyDraft(), name: "docs", type: "sse" as const, url: " https://docs.example.com/sse ", headers: [newPair("Authorization", "Bearer ${T}")] };
    expect(specFromDraft(draft)).toEqual({ ok: true, spec: { type: "sse", url: "https://docs.example.com/sse", headers: { Authorization: "Bearer ${T}" } } });
  });

  it("checks emptiness and shape only", () => {
    const error = (draft: Parameters<typeof specFromDraft>[0]) => {
      const checked = specFromDraft(draft);
      return checked.ok ? null : checked.error;
    };
    expect(error({ ...stdio, name: " " })).toBe("Give the server a name.");
    expect(error({ ...stdio, name: "my server" })).toBe("A name may hold only letters, digits, - and _.");
    expect(error({ ...stdio, command: "" })).toBe("Give the command that starts the server.");
    expect(error({ ...stdio, args: "'open" })).toBe("The arguments have an unclosed single quote.");
    expect(error({ ...stdio, env: [newPair("", "x")] })).toBe("A variable has a value but no name.");
    expect(error({ ...stdio, env: [newPair("MY VAR", "x")] })).toBe('"MY VAR" is not a valid variable name.');
    expect(error({ ...stdio, env: [newPair("A", "1"), newPair("A", "2")] })).toBe("The variable A is given twice.");
    const http = { ...stdio, type: "http" as const };
    expect(error({ ...http, url: "" })).toBe("Give the server's URL.");
    expect(error({ ...http, url: "docs.example.com/mcp" })).toBe("The URL must start with http:// or https://.");
    expect(error({ ...http, url: "http://localhost:8080/mcp", headers: [newPair("X Key", "v")] })).toBe('"X Key" is not a valid header name.');
    expect(error({ ...http, url: "http://localhost:8080/mcp" })).toBeNull();
  });

  it("prefills an edit from the spec, and saving it unchanged gives the same spec", () => {
    const spec = { type: "stdio" as const, command: "node", args: ["kit.js", "--title", "My Kit"], env: { KIT_TOKEN: "${KIT_TOKEN}" } };
    const draft = draftFromSpec("kit", "user", spec);
    expect(draft).toMatchObject({ name: "kit", scope: "user", type: "stdio", command: "node", args: "kit.js --title 'My Kit'" });
    expect(draft.env.map((p) => [p.key, p.value])).toEqual([["KIT_TOKEN", "${KIT_TOKEN}"]]);
    expect(specFromDraft(draft)).toEqual({ ok: true, spec });
  });
});
