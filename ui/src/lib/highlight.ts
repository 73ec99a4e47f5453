// Syntax highlighting with highlight.js core and only the languages a coding agent meets most,
// to keep the bundle small. Output is HTML made of escaped text and <span class="hljs-…">.
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import typescript from "highlight.js/lib/languages/typescript";
import ini from "highlight.js/lib/languages/ini";

hljs.registerLanguage("bash", bash);
hljs.registerLanguage("diff", diff);
hljs.registerLanguage("go", go);
hljs.registerLanguage("javascript", javascript);
hljs.registerLanguage("json", json);
hljs.registerLanguage("markdown", markdown);
hljs.registerLanguage("python", python);
hljs.registerLanguage("rust", rust);
hljs.registerLanguage("typescript", typescript);
// highlight.js has no separate TOML grammar: its "ini" grammar covers TOML.
hljs.registerLanguage("ini", ini);
hljs.registerAliases(["toml"], { languageName: "ini" });
hljs.registerAliases(["sh", "shell", "zsh", "console"], { languageName: "bash" });

const BY_EXTENSION: Record<string, string> = {
  rs: "rust",
  ts: "typescript",
  tsx: "typescript",
  mts: "typescript",
  cts: "typescript",
  js: "javascript",
  jsx: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  svelte: "typescript",
  py: "python",
  sh: "bash",
  bash: "bash",
  zsh: "bash",
  json: "json",
  jsonl: "json",
  diff: "diff",
  patch: "diff",
  toml: "ini",
  ini: "ini",
  md: "markdown",
  markdown: "markdown",
  go: "go",
};

/** The registered language for a file path, or null when we have none for it. */
export function languageForPath(path: string | null | undefined): string | null {
  if (!path) return null;
  const name = path.split(/[\\/]/).pop() ?? "";
  if (name === "Cargo.lock") return "ini";
  const dot = name.lastIndexOf(".");
  if (dot < 0) return null;
  return BY_EXTENSION[name.slice(dot + 1).toLowerCase()] ?? null;
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** Highlighted HTML for `code`; plain escaped text when the language is unknown. */
export function highlight(code: string, language: string | null | undefined): string {
  if (language && hljs.getLanguage(language)) {
    try {
      return hljs.highlight(code, { language, ignoreIllegals: true }).value;
    } catch {
      // fall through to plain text
    }
  }
  return escapeHtml(code);
}
