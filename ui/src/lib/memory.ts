// Instruction ("memory") files: their kinds in words, the order the `#` chooser offers them in,
// and the line a `#` prompt adds. Which files there are, and what they say, is the engine's.
import type { MemoryFileView } from "../bindings/MemoryFileView";

/** What a file is to the user: theirs (every project), the project's, or imported by another. */
export function memoryKindLabel(file: MemoryFileView): string {
  switch (file.kind) {
    case "user":
      return "Yours, every project";
    case "project":
      return "Project";
    case "import":
      return file.imported_by ? `Imported by ${baseName(file.imported_by)}` : "Imported";
    default:
      return file.kind satisfies never;
  }
}

const baseName = (path: string) => path.split(/[\\/]/).filter(Boolean).at(-1) ?? path;

/** The files the `#` chooser offers: the project's `NERVE.md` first (the one chosen unless the
 *  user picks another), the user's own, then the others in the engine's order. */
export function pickOrder(files: readonly MemoryFileView[]): MemoryFileView[] {
  const nerve = files.find((f) => f.kind === "project" && baseName(f.path) === "NERVE.md");
  const user = files.filter((f) => f.kind === "user");
  const first = [...(nerve ? [nerve] : []), ...user];
  return [...first, ...files.filter((f) => !first.includes(f))];
}

/** The line a prompt starting with `#` adds to a memory file (its lines joined, trimmed), or null
 *  for a prompt that does not start with `#`. */
export function memoryLine(prompt: string): string | null {
  if (!prompt.startsWith("#")) return null;
  return prompt.slice(1).replace(/\s+/g, " ").trim();
}
