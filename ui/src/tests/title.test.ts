import { describe, expect, it } from "vitest";
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
