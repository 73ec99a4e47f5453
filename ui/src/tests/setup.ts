import { afterEach } from "vitest";
import { clearMocks } from "@tauri-apps/api/mocks";

// jsdom has no layout and no ResizeObserver (Svelte's bind:clientHeight uses one). A no-op
// observer is faithful enough: sizes in jsdom are always 0 anyway.
if (!("ResizeObserver" in globalThis)) {
  globalThis.ResizeObserver = class {
    observe() {}
    unobserve() {}
    disconnect() {}
  } as unknown as typeof ResizeObserver;
}

// jsdom has no layout, so no scrolling either: scrollIntoView is a no-op that tests can spy on.
if (typeof Element.prototype.scrollIntoView !== "function") {
  Element.prototype.scrollIntoView = function scrollIntoView() {};
}

// Each test installs its own IPC mock; never let one leak into the next.
afterEach(() => {
  clearMocks();
});
