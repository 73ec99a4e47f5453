// Settings → Agents & skills: the sub-agent types and skills the engine found, shown as it says
// them (tools, model, source, the files they replace), the files it could not use, descriptions as
// text, and where to put definitions when there are none.
import { describe, expect, it, vi } from "vitest";
import { render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import DefinitionsSection from "../lib/components/settings/DefinitionsSection.svelte";
import SettingsPanel from "../lib/components/SettingsPanel.svelte";
import type { AgentDefinitionView } from "../bindings/AgentDefinitionView";
import type { DefinitionsView } from "../bindings/DefinitionsView";
import type { SkillView } from "../bindings/SkillView";
import { appState } from "./live";
import { mockSettings, noDefinitions, PROJECT, projectSettings } from "./settingsFixtures";

const HOME = "/home/me";

const reviewer = (fields: Partial<AgentDefinitionView> = {}): AgentDefinitionView => ({
  name: "code-reviewer",
  description: "Reviews a diff for bugs and style.",
  tools: ["Read", "Grep", "Bash"],
  model: "sonnet",
  source: "project_nerve",
  path: `${PROJECT}/.nerve/agents/code-reviewer.md`,
  overrides: [`${PROJECT}/.claude/agents/code-reviewer.md`, `${HOME}/.claude/agents/code-reviewer.md`],
  ...fields,
});

const helper = (fields: Partial<AgentDefinitionView> = {}): AgentDefinitionView => ({
  name: "helper",
  description: "Helps with anything.",
  tools: null,
  model: null,
  source: "user_claude",
  path: `${HOME}/.claude/agents/helper.md`,
  overrides: [],
  ...fields,
});

const skill = (fields: Partial<SkillView> = {}): SkillView => ({
  name: "release-notes",
  description: "Writes the release notes from the changelog.",
  offered_to_model: true,
  source: "project_claude",
  path: `${PROJECT}/.claude/skills/release-notes/SKILL.md`,
  overrides: [],
  ...fields,
});

function definitions(fields: Partial<DefinitionsView> = {}): DefinitionsView {
  return {
    agents: [reviewer(), helper()],
    skills: [skill(), skill({ name: "deploy", description: "Deploys to production.", offered_to_model: false, source: "user_nerve", path: `${HOME}/.config/nerve/skills/deploy/SKILL.md` })],
    problems: [],
    ...fields,
  };
}

function show(view: DefinitionsView) {
  render(DefinitionsSection, { definitions: view });
}

const row = (testid: "definition-agent" | "definition-skill", name: string) => {
  const found = screen.getAllByTestId(testid).find((r) => r.dataset.name === name);
  if (!found) throw new Error(`no ${testid} ${name}`);
  return found;
};

describe("Settings → Agents & skills", () => {
  it("shows a sub-agent's name, description, tool chips, model, source and the files it replaces", () => {
    show(definitions());
    expect(screen.getByTestId("definitions-section")).toBeTruthy();
    expect(screen.getAllByTestId("definition-agent")).toHaveLength(2);
    const agent = within(row("definition-agent", "code-reviewer"));
    const name = agent.getByTestId("definition-name");
    expect(name.tagName).toBe("CODE");
    expect(name.textContent).toBe("code-reviewer");
    expect(agent.getByTestId("definition-description").textContent).toBe("Reviews a diff for bugs and style.");
    expect(agent.getAllByTestId("definition-tool").map((t) => t.textContent)).toEqual(["Read", "Grep", "Bash"]);
    for (const chip of agent.getAllByTestId("definition-tool")) expect(chip.classList.contains("chip")).toBe(true);
    expect(agent.getByTestId("definition-model").textContent).toContain("sonnet");
    expect(agent.getByTestId("definition-source").textContent).toBe("Project · Nerve");
    expect(agent.getByTestId("definition-path").textContent).toBe(`${PROJECT}/.nerve/agents/code-reviewer.md`);
    expect(agent.getByTestId("definition-overrides").textContent?.trim()).toBe(
      `Replaces: ${PROJECT}/.claude/agents/code-reviewer.md, ${HOME}/.claude/agents/code-reviewer.md`,
    );
  });

  it("says all tools and the session's model when the definition names none, and replaces nothing", () => {
    show(definitions());
    const agent = within(row("definition-agent", "helper"));
    expect(agent.getByTestId("definition-tools").textContent).toContain("All tools");
    expect(agent.queryByTestId("definition-tool")).toBeNull();
    expect(agent.getByTestId("definition-model").textContent).toContain("Session's model");
    expect(agent.getByTestId("definition-source").textContent).toBe("User · Claude Code");
    expect(agent.queryByTestId("definition-overrides")).toBeNull();
  });

  it("names every source in words", () => {
    show(
      definitions({
        agents: [
          helper({ name: "a", source: "user_claude", path: "/a.md" }),
          helper({ name: "b", source: "user_nerve", path: "/b.md" }),
          helper({ name: "c", source: "project_claude", path: "/c.md" }),
          helper({ name: "d", source: "project_nerve", path: "/d.md" }),
        ],
      }),
    );
    const words = screen.getAllByTestId("definition-agent").map((r) => within(r).getByTestId("definition-source").textContent);
    expect(words).toEqual(["User · Claude Code", "User · Nerve", "Project · Claude Code", "Project · Nerve"]);
  });

  it("shows skills with their source and path, marking one the model is not offered", () => {
    show(definitions({ skills: [skill({ overrides: [`${HOME}/.claude/skills/release-notes/SKILL.md`] }), definitions().skills[1]!] }));
    expect(screen.getAllByTestId("definition-skill")).toHaveLength(2);
    const offered = within(row("definition-skill", "release-notes"));
    expect(offered.getByTestId("definition-name").textContent).toBe("release-notes");
    expect(offered.getByTestId("definition-description").textContent).toBe("Writes the release notes from the changelog.");
    expect(offered.getByTestId("definition-source").textContent).toBe("Project · Claude Code");
    expect(offered.getByTestId("definition-path").textContent).toBe(`${PROJECT}/.claude/skills/release-notes/SKILL.md`);
    expect(offered.getByTestId("definition-overrides").textContent?.trim()).toBe(`Replaces: ${HOME}/.claude/skills/release-notes/SKILL.md`);
    expect(offered.queryByText("Only you can run it")).toBeNull();

    const userOnly = within(row("definition-skill", "deploy"));
    expect(userOnly.getByTestId("definition-user-only").textContent).toBe("Only you can run it");
    expect(userOnly.getByTestId("definition-source").textContent).toBe("User · Nerve");
  });

  it("lists the files that could not be used, with their line when there is one", () => {
    show(
      definitions({
        problems: [
          { path: `${PROJECT}/.claude/agents/broken.md`, line: 3, message: "`description` is missing" },
          { path: `${PROJECT}/.claude/skills/huge/SKILL.md`, line: null, message: "the file is larger than 256 KiB" },
        ],
      }),
    );
    const problems = screen.getAllByTestId("definition-problem").map((p) => p.textContent);
    expect(problems).toEqual([
      `${PROJECT}/.claude/agents/broken.md:3: \`description\` is missing`,
      `${PROJECT}/.claude/skills/huge/SKILL.md: the file is larger than 256 KiB`,
    ]);
    // The definitions that could be read are listed all the same.
    expect(screen.getAllByTestId("definition-agent")).toHaveLength(2);
  });

  it("shows no problem block when every file could be used", () => {
    show(definitions());
    expect(screen.queryByTestId("definition-problems")).toBeNull();
    expect(screen.queryByTestId("definition-problem")).toBeNull();
  });

  it("shows descriptions and names as text, never as HTML", () => {
    const hostile = "Use it <img src=x onerror=alert(1)> <b>now</b>";
    show(
      definitions({
        agents: [reviewer({ description: hostile })],
        skills: [skill({ description: hostile, name: "<i>x</i>" })],
        problems: [{ path: "/p/<img src=y>.md", line: 1, message: "<img src=z onerror=alert(2)>" }],
      }),
    );
    const section = screen.getByTestId("definitions-section");
    expect(section.querySelector("img")).toBeNull();
    expect(section.querySelector("b")).toBeNull();
    expect(section.querySelector("i")).toBeNull();
    const descriptions = screen.getAllByTestId("definition-description");
    for (const d of descriptions) expect(d.textContent).toBe(hostile);
    expect(screen.getByTestId("definition-skill").dataset.name).toBe("<i>x</i>");
    expect(screen.getByTestId("definition-problem").textContent).toBe("/p/<img src=y>.md:1: <img src=z onerror=alert(2)>");
  });

  it("clamps a long description to a few lines with a toggle to read it all", async () => {
    const user = userEvent.setup();
    const long = [
      "Use this agent after writing code.",
      "<example>",
      "user: I wrote the parser",
      "assistant: Let me start the code-reviewer agent",
      "</example>",
    ].join("\n");
    show(definitions({ agents: [reviewer({ description: long }), helper()] }));
    const agent = within(row("definition-agent", "code-reviewer"));
    const text = agent.getByTestId("definition-description");
    expect(text.textContent).toBe(long);
    expect(text.classList.contains("clamp")).toBe(true);
    const more = agent.getByTestId("definition-more");
    expect(more.textContent).toBe("more");
    expect(more.getAttribute("aria-expanded")).toBe("false");
    await user.click(more);
    expect(text.classList.contains("clamp")).toBe(false);
    expect(more.textContent).toBe("less");
    expect(more.getAttribute("aria-expanded")).toBe("true");
    await user.click(more);
    expect(text.classList.contains("clamp")).toBe(true);
    // A short one needs no toggle.
    expect(within(row("definition-agent", "helper")).queryByTestId("definition-more")).toBeNull();
  });

  it("explains how the model uses them and which file wins", () => {
    show(definitions());
    expect(screen.getByTestId("definitions-section").textContent?.replace(/\s+/g, " ")).toContain(
      "The model can start these sub-agents with the Agent tool and load these skills with the Skill tool. .nerve/ files take precedence over .claude/ ones, and the project's over yours.",
    );
  });

  it("says where to put sub-agents and skills when there are none", () => {
    show(noDefinitions());
    expect(screen.queryByTestId("definition-agent")).toBeNull();
    expect(screen.queryByTestId("definition-skill")).toBeNull();
    expect(screen.queryByTestId("definition-problems")).toBeNull();
    const agents = screen.getByTestId("definitions-no-agents").textContent?.replace(/\s+/g, " ").trim();
    expect(agents).toBe(
      "No sub-agent types. Put Markdown files with name, description, optional tools and model front matter in .claude/agents/ or .nerve/agents/ (this project) or ~/.claude/agents/ (all projects).",
    );
    const skills = screen.getByTestId("definitions-no-skills").textContent?.replace(/\s+/g, " ").trim();
    expect(skills).toContain("No skills.");
    expect(skills).toContain(".claude/skills/<name>/SKILL.md");
    expect(skills).toContain("~/.claude/skills/<name>/SKILL.md");
  });

  it("is a section of Settings, after the hooks, showing what the engine sent for the project", async () => {
    mockSettings({ get_project_settings: () => ({ ...projectSettings(), definitions: definitions() }) });
    render(SettingsPanel, { app: appState(), onchanged: vi.fn(), onclose: vi.fn(), projectPath: PROJECT, sessionId: null });
    expect(screen.getByTestId("settings-nav-definitions").textContent).toBe("Agents & skills");
    const nav = [...screen.getByRole("navigation", { name: "Settings sections" }).querySelectorAll("button")].map((b) => b.dataset.testid);
    expect(nav.indexOf("settings-nav-definitions")).toBe(nav.indexOf("settings-nav-hooks") + 1);
    const section = screen.getByTestId("settings-section-definitions");
    expect(within(section).getByRole("heading", { level: 3 }).textContent).toBe("Agents & skills");
    await waitFor(() => expect(within(section).getAllByTestId("definition-agent")).toHaveLength(2));
    expect(within(section).getAllByTestId("definition-skill")).toHaveLength(2);
  });
});
