import { describe, expect, it } from "vitest";
import { render, screen } from "@testing-library/svelte";
import ProjectName from "../lib/components/ProjectName.svelte";
import { splitProjectPath, windowTitle } from "../lib/title";

describe("project names", () => {
  it("splits a path into its parent and the folder's name", () => {
    expect(splitProjectPath("/home/me/projects/nerve-demo")).toEqual({ parent: "/home/me/projects/", name: "nerve-demo" });
    expect(splitProjectPath("/home/me/projects/nerve-demo/")).toEqual({ parent: "/home/me/projects/", name: "nerve-demo" });
    expect(splitProjectPath("C:\\Users\\me\\app")).toEqual({ parent: "C:\\Users\\me\\", name: "app" });
    expect(splitProjectPath("/")).toEqual({ parent: "", name: "/" });
  });

  it("titles the window with the waiting approvals, then the app and the project", () => {
    expect(windowTitle(null, 0)).toBe("Nerve");
    expect(windowTitle("/home/me/projects/nerve-demo", 0)).toBe("Nerve — nerve-demo");
    expect(windowTitle("/home/me/projects/nerve-demo", 2)).toBe("(2) Nerve — nerve-demo");
  });
});

describe("ProjectName", () => {
  it("shows the folder's name in full apart from its parent, with the whole path as tooltip", () => {
    render(ProjectName, { path: "/home/me/a/very/long/path/to/projects/nerve-demo" });
    const project = screen.getByTestId("project-name");
    expect(project.title).toBe("/home/me/a/very/long/path/to/projects/nerve-demo");
    // Only the parent may be cut (ellipsis); the folder's name has its own element.
    expect(screen.getByTestId("project-folder").textContent).toBe("nerve-demo");
    expect(screen.getByTestId("project-parent").textContent).toBe("/home/me/a/very/long/path/to/projects/");
    expect(getComputedStyle(screen.getByTestId("project-parent")).textOverflow).toBe("ellipsis");
    expect(getComputedStyle(screen.getByTestId("project-folder")).flexShrink).toBe("0");
  });
});
