// The app's one aria-live region (App renders `announcer.text`): what screen readers are told
// without moving the focus, such as a turn's end or a new approval request in any session. Only the
// latest announcement is held: a polite region reads it once the reader is free.
export const announcer = $state({ text: "" });

/**
 * Tells screen readers `text`. A live region only speaks when its content changes, so the same
 * text again (a second session done, the same request asked again) alternates a trailing no-break
 * space: a change the reader hears, nothing the user reads.
 */
export function announce(text: string) {
  announcer.text = announcer.text === text ? `${text}\u00a0` : text;
}
