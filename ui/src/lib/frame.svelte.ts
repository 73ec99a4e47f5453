// Work paced to the display: at most once per animation frame.

/** Runs `fn` before the next repaint (or soon, where there are no frames). */
export function nextFrame(fn: () => void): void {
  const raf = globalThis.requestAnimationFrame;
  if (typeof raf === "function") raf(() => fn());
  else setTimeout(fn, 16);
}

/**
 * A value that follows what it is given at most once per frame: the first change in a frame shows
 * at once (nothing waits when changes are rare), later ones in the same frame wait for the next
 * frame, and only the latest of them is kept.
 */
export class PerFrame<T> {
  value: T = $state.raw() as T;
  private waiting: { value: T } | null = null;
  private frameOpen = false;

  constructor(initial: T) {
    this.value = initial;
  }

  set(value: T) {
    if (this.frameOpen) {
      this.waiting = { value };
      return;
    }
    this.value = value;
    this.frameOpen = true;
    nextFrame(() => {
      this.frameOpen = false;
      const waiting = this.waiting;
      this.waiting = null;
      if (waiting) this.set(waiting.value);
    });
  }
}
