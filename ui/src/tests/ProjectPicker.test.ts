import { beforeEach, describe, expect, it, vi } from "vitest";
import { render, screen, waitFor } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import { mockIPC, mockWindows } from "@tauri-apps/api/mocks";
import ProjectPicker from "../lib/components/ProjectPicker.svelte";
import { sessionInfo } from "./live";

const SESSION = sessionInfo({ session_id: "s9", project_path: "/work/p" });

describe("ProjectPicker", () => {
  let calls: { cmd: string; args: unknown }[];
  beforeEach(() => {
    calls = [];
    mockWindows("main");
    mockIPC((cmd, args) => {
      calls.push({ cmd, args });
      if (cmd === "plugin:dialog|open") return "/work/p";
      if (cmd === "open_project")
        return {
          path: "/work/p",
          mode: "default",
          sessions: [{ session_id: "old-1", modified_ms: 1_700_000_000_000, title: "Fix the parser" }],
          unapproved_mcp_servers: [],
        };
      if (cmd === "start_session") return SESSION;
      return null;
    });
  });

  it("opens a folder from the system dialog, lists its sessions and resumes one", async () => {
    const user = userEvent.setup();
    const onstarted = vi.fn();
    render(ProjectPicker, { recent: ["/recent/a"], onstarted });
    expect(screen.getByTestId("recent-project").textContent).toBe("/recent/a");
    await user.click(screen.getByTestId("open-project"));
    const resume = await screen.findByTestId("resume-session");
    expect(resume.textContent).toContain("Fix the parser");
    const dialogCall = calls.find((c) => c.cmd === "plugin:dialog|open");
    expect((dialogCall?.args as { options: { directory: boolean } }).options.directory).toBe(true);
    expect(calls.find((c) => c.cmd === "open_project")?.args).toEqual({ path: "/work/p" });
    await user.click(resume);
    await waitFor(() => expect(onstarted).toHaveBeenCalled());
    expect(calls.at(-1)).toEqual({ cmd: "start_session", args: { projectPath: "/work/p", resume: "old-1" } });
    expect(onstarted.mock.calls[0]![0]).toEqual(SESSION);
  });

  it("starts a new session from the typed path when asked", async () => {
    const user = userEvent.setup();
    const onstarted = vi.fn();
    render(ProjectPicker, { recent: [], onstarted });
    await user.type(screen.getByTestId("project-path-input"), "/work/p");
    await user.click(screen.getByTestId("project-path-open"));
    await user.click(await screen.findByTestId("new-session"));
    await waitFor(() => expect(onstarted).toHaveBeenCalled());
    expect(calls.at(-1)).toEqual({ cmd: "start_session", args: { projectPath: "/work/p", resume: null } });
  });
});
