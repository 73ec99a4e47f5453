// Copy buttons on rendered code blocks. They are mounted into the HTML afterwards, so the
// sanitiser never has to let a button through; each copies its code's text only.
import { mount, unmount } from "svelte";
import CopyButton from "./CopyButton.svelte";

/** Mounts a copy button in each `pre` under `root`; returns what takes them away again. */
export function mountCopyButtons(root: HTMLElement): () => void {
  const buttons = [...root.querySelectorAll("pre")].map((pre) => {
    const code = pre.textContent ?? "";
    return mount(CopyButton, { target: pre, props: { text: code, label: "Copy code", testid: "copy-code" } });
  });
  return () => buttons.forEach((b) => void unmount(b));
}
