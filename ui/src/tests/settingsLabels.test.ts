import { describe, expect, it } from "vitest";
import { shortenMiddle, sourceLabel } from "../lib/components/settings/labels";

describe("settings labels", () => {
  it("shortens a long path in the middle, keeping more of its end", () => {
    const path = "/home/someone/projects/a-rather-long-project-name/.nerve/settings.local.json";
    const short = shortenMiddle(path, 40);
    expect(short).toHaveLength(40);
    expect(short).toContain("…");
    expect(short.endsWith("settings.local.json")).toBe(true);
    expect(short.startsWith("/home/")).toBe(true);
    expect(shortenMiddle("/etc/x.json", 40)).toBe("/etc/x.json");
  });

  it("names the engine's sources for people and passes unknown ones through", () => {
    expect(sourceLabel("localSettings")).toBe("Project (local, not committed)");
    expect(sourceLabel("policySettings")).toBe("Managed policy");
    expect(sourceLabel("toString")).toBe("toString");
    expect(sourceLabel("somethingNew")).toBe("somethingNew");
  });
});
