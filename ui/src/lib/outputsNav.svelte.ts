// Where the Outputs browser is asked for: App shows it while `open`, and a tool card's persisted
// output chip opens it at one output (its call id or path) without a callback chain up to App.
// `project` is the project to browse when no session is open (a recent project on the picker).
export const outputsNav = $state<{ open: boolean; output: string | null; project: string | null }>({
  open: false,
  output: null,
  project: null,
});

/** Opens the browser, at one output's viewer when given; `project` when no session is open. */
export function openOutputs(output: string | null = null, project: string | null = null) {
  outputsNav.output = output;
  outputsNav.project = project;
  outputsNav.open = true;
}

export function closeOutputs() {
  outputsNav.open = false;
  outputsNav.output = null;
  outputsNav.project = null;
}
