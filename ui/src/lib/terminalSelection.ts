// Text selected in a terminal goes to the prompt box in one of two ways: "Send to agent" puts it in
// the text as a fenced code block, so the model reads it as output, not as the user's words; "Add
// selection to prompt" attaches it (a chip; the engine gives it to the model as a block of its
// own). Nothing else of a terminal ever reaches the model.

/**
 * The selection without what the terminal adds to it, or null when nothing but blanks is selected.
 * A terminal pads its lines with spaces to the screen's width and a selection often takes a blank
 * line with it: both go.
 */
export function trimSelection(selection: string): string | null {
  const lines = selection.replace(/\r\n?/g, "\n").split("\n").map((line) => line.trimEnd());
  while (lines.length && lines[0] === "") lines.shift();
  while (lines.length && lines.at(-1) === "") lines.pop();
  return lines.length === 0 ? null : lines.join("\n");
}

/**
 * The selection as a Markdown code block, or null when nothing but blanks is selected (trimmed as
 * `trimSelection` does). The fence is longer than any run of backticks inside, so the block cannot
 * end early.
 */
export function fencedSelection(selection: string): string | null {
  const body = trimSelection(selection);
  if (body === null) return null;
  const longestRun = Math.max(0, ...(body.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(Math.max(3, longestRun + 1));
  return `${fence}\n${body}\n${fence}`;
}
