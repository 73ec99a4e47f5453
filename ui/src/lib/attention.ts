// What the shell asks of the window from outside it (lib/ipc.ts `watchAttention`): a click on one
// of its notices shows that session; a folder named on the command line (this launch's, or a
// second launch's) opens as a project.
import type { AttentionEvent } from "../bindings/AttentionEvent";

/** What the app does for each ask. */
export interface AttentionActions {
  /** Whether a session is still live (a notice of one closed since changes nothing). */
  isLive: (sessionId: string) => boolean;
  /** Shows a live session, in front of whatever covers it. */
  show: (sessionId: string) => void;
  /** Opens a folder as the project picker opens one, in front of whatever covers the main area. */
  openFolder: (path: string) => void;
}

export function onAttention(event: AttentionEvent, act: AttentionActions) {
  switch (event.type) {
    case "show_session":
      if (act.isLive(event.session_id)) act.show(event.session_id);
      return;
    case "open_folder":
      act.openFolder(event.path);
      return;
  }
}
