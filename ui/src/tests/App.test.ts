// The whole app with a live session: Settings never hide the session (it stays mounted behind
// them, and requests that arrive meanwhile are announced), and the window title counts approvals.
import { describe, expect, it } from "vitest";
import { render, screen, waitFor } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import App from "../App.svelte";
import { bashRequest, editRequest, filePreview, mainHunk, queued } from "./fixtures";
import { type Handler, liveSession, sessionInfo } from "./live";

async function appWithSession(handlers: Record<string, Handler> = {}) {
  const live = liveSession(sessionInfo(), handlers);
  const user = userEvent.setup();
  render(App);
  await user.type(await screen.findByTestId("project-path-input"), "/home/me/projects/nerve-demo");
  await user.click(screen.getByTestId("project-path-open")); // a project without sessions starts one
  await user.type(await screen.findByTestId("prompt-input"), "change x{Enter}");
  await waitFor(() => expect(live.turns).toHaveLength(1));
  return { live, user, turn: live.turns[0]! };
}

describe("Settings over a session", () => {
  it("keeps an edited proposal through opening and closing Settings", async () => {
    const { live, user, turn } = await appWithSession({
      preview_permission_edit: () => filePreview("/p/src/main.rs", "update", [mainHunk("let x = 99;")]),
    });
    turn.send(queued("tu-r-edit", 1, false, "Edit"));
    turn.send({ type: "permission_requested", request: editRequest() });
    await user.click(await screen.findByTestId("edit-input"));
    const box = screen.getByTestId("edited-text");
    await user.clear(box);
    await user.type(box, "let x = 99;");
    await waitFor(() => expect(screen.getByTestId("permission-diff").textContent).toContain("let x = 99;"), { timeout: 3000 });

    await user.click(screen.getByTestId("open-settings"));
    expect(screen.getByTestId("settings-panel")).toBeTruthy();
    expect(screen.getByTestId("main-screen").hidden).toBe(true);
    await user.click(screen.getByTestId("settings-close"));

    expect(screen.getByTestId("main-screen").hidden).toBe(false);
    expect((screen.getByTestId("edited-text") as HTMLTextAreaElement).value).toBe("let x = 99;");
    expect(screen.getByTestId("permission-diff").textContent).toContain("let x = 99;");
    await user.click(screen.getByTestId("allow-once"));
    await waitFor(() => expect(live.called("answer_permission")).toHaveLength(1));
    expect(live.called("answer_permission")[0]!.answer).toEqual({
      answer: "allow_once",
      updated_input: { file_path: "/p/src/main.rs", old_string: "let x = 1;", new_string: "let x = 99;" },
    });
  });

  it("announces a request that arrives while Settings show, and leads back to it with the focus", async () => {
    const { user, turn } = await appWithSession();
    await user.click(screen.getByTestId("open-settings"));
    expect(screen.queryByTestId("approvals-waiting")).toBeNull();

    turn.send(queued("tu-r-bash", 1, false, "Bash"));
    turn.send({ type: "permission_requested", request: bashRequest() });
    const waiting = await screen.findByTestId("approvals-waiting");
    expect(waiting.getAttribute("role")).toBe("alert");
    expect(waiting.textContent).toContain("A permission request waits");
    // Settings keep the focus meanwhile: a key typed there must not reach the hidden dialog.
    expect(document.activeElement).not.toBe(screen.getByTestId("permission-dialog"));

    await user.click(screen.getByTestId("approvals-waiting-show"));
    expect(screen.queryByTestId("settings-panel")).toBeNull();
    await waitFor(() => expect(document.activeElement).toBe(screen.getByTestId("permission-dialog")));
  });
});

describe("The window title", () => {
  it("counts the waiting approvals and names the project", async () => {
    const { user, turn } = await appWithSession();
    expect(document.title).toBe("Nerve — nerve-demo");
    turn.send(queued("tu-r-bash", 1, false, "Bash"));
    turn.send({ type: "permission_requested", request: bashRequest() });
    // The engine gives an Edit a batch of its own (it never runs beside another call); two
    // requests of one batch would be answered together.
    turn.send(queued("tu-r-edit", 2, false, "Edit"));
    turn.send({ type: "permission_requested", request: editRequest() });
    await waitFor(() => expect(document.title).toBe("(2) Nerve — nerve-demo"));
    await user.click(screen.getByTestId("deny"));
    await waitFor(() => expect(document.title).toBe("(1) Nerve — nerve-demo"));
  });
});
