// The settings screen's sections, in the order they are shown and listed in its navigation.
export const SECTIONS = [
  { id: "model-server", title: "Model server" },
  { id: "defaults", title: "Defaults for new sessions" },
  { id: "notifications", title: "Notifications" },
  { id: "keyboard", title: "Keyboard" },
  { id: "rules", title: "Permission rules" },
  { id: "tester", title: "Test a call" },
  { id: "mcp", title: "MCP servers" },
  { id: "hooks", title: "Hooks" },
  { id: "definitions", title: "Agents & skills" },
  { id: "memory", title: "Memory" },
  { id: "appearance", title: "Appearance" },
  { id: "about", title: "About & diagnostics" },
] as const;

export type SectionId = (typeof SECTIONS)[number]["id"];
