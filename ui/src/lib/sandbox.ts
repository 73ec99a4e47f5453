// How a call's sandbox state reads on its card and in the permission dialog. The engine decides
// whether a call runs sandboxed (and why not); this only words it.
import type { SandboxState } from "../bindings/SandboxState";
import type { SandboxRefusal } from "../bindings/SandboxRefusal";

export interface SandboxLabel {
  /** The chip's text. */
  text: string;
  /** The longer explanation (hover on the card, the line in the dialog). */
  detail: string;
  sandboxed: boolean;
}

export function sandboxLabel(state: SandboxState): SandboxLabel {
  if (state.state === "sandboxed") {
    return {
      text: "sandboxed",
      detail: state.network
        ? "Runs in the sandbox: it can write only in the working folders and cannot read your keys; it may use the network."
        : "Runs in the sandbox: it can write only in the working folders, cannot read your keys, and has no network.",
      sandboxed: true,
    };
  }
  return { text: "not sandboxed", detail: `Runs without the sandbox: ${state.reason}.`, sandboxed: false };
}

export interface RefusalLabel {
  /** What was refused, in a line. */
  text: string;
  /** The one-click button's text. */
  action: string;
}

/** How a refusal the engine reported reads on the card, with its one-click offer. */
export function refusalLabel(refusal: SandboxRefusal): RefusalLabel {
  if (refusal.kind === "write") {
    return {
      text: `The sandbox refused writing ${refusal.path}.`,
      action: `Allow writing ${refusal.setting} for this project`,
    };
  }
  return {
    text: `The sandbox refused connecting to ${refusal.host}:${refusal.port}.`,
    action: `Allow ${refusal.host} for this project`,
  };
}
