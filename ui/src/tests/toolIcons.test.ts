// The icons of tool calls: one per kind of tool and one per state, decorative (aria-hidden SVGs that add
// no text to the card, whose text the end-to-end tests read exactly).
import { describe, expect, it } from "vitest";
import { render, within } from "@testing-library/svelte";
import Ban from "@lucide/svelte/icons/ban";
import Bot from "@lucide/svelte/icons/bot";
import Check from "@lucide/svelte/icons/check";
import CircleStop from "@lucide/svelte/icons/circle-stop";
import CircleX from "@lucide/svelte/icons/circle-x";
import ClipboardList from "@lucide/svelte/icons/clipboard-list";
import Clock from "@lucide/svelte/icons/clock";
import FilePen from "@lucide/svelte/icons/file-pen";
import FileText from "@lucide/svelte/icons/file-text";
import Globe from "@lucide/svelte/icons/globe";
import ListChecks from "@lucide/svelte/icons/list-checks";
import LoaderCircle from "@lucide/svelte/icons/loader-circle";
import Plug from "@lucide/svelte/icons/plug";
import Search from "@lucide/svelte/icons/search";
import ShieldQuestionMark from "@lucide/svelte/icons/shield-question-mark";
import Terminal from "@lucide/svelte/icons/terminal";
import Wrench from "@lucide/svelte/icons/wrench";
import ToolCard from "../lib/components/ToolCard.svelte";
import { newToolCall } from "../lib/conversation/reducer";
import { stateIcon, toolIcon } from "../lib/toolIcons";
import type { ToolKind } from "../bindings/ToolKind";

describe("tool icons", () => {
  it("gives each kind of tool its icon, as the engine names the kind", () => {
    const kinds: [ToolKind, unknown][] = [
      [{ kind: "shell" }, Terminal],
      [{ kind: "file_edit" }, FilePen],
      [{ kind: "file_write" }, FilePen],
      [{ kind: "read" }, FileText],
      [{ kind: "search" }, Search],
      [{ kind: "fetch" }, Globe],
      [{ kind: "plan" }, ClipboardList],
      [{ kind: "agent" }, Bot],
      [{ kind: "todo" }, ListChecks],
      [{ kind: "mcp", server: "github", tool: "create_issue" }, Plug],
      [{ kind: "other" }, Wrench],
    ];
    expect(kinds.map(([kind]) => toolIcon(kind))).toEqual(kinds.map(([, icon]) => icon));
  });

  it("gives each state its icon; only a running call spins", () => {
    expect(stateIcon("queued")).toEqual({ icon: Clock, spin: false });
    expect(stateIcon("executing")).toEqual({ icon: LoaderCircle, spin: true });
    expect(stateIcon("completed")).toEqual({ icon: Check, spin: false });
    expect(stateIcon("error")).toEqual({ icon: CircleX, spin: false });
    expect(stateIcon("denied")).toEqual({ icon: Ban, spin: false });
    expect(stateIcon("cancelled")).toEqual({ icon: CircleStop, spin: false });
  });

  it("shows a call waiting for the user's approval as such, until it has finished", () => {
    expect(stateIcon("queued", true)).toEqual({ icon: ShieldQuestionMark, spin: false });
    expect(stateIcon("executing", true)).toEqual({ icon: ShieldQuestionMark, spin: false });
    expect(stateIcon("completed", true).icon).toBe(Check);
    expect(stateIcon("denied", true).icon).toBe(Ban);
  });

  it("renders them as hidden SVGs that leave the card's text as it was", () => {
    const call = newToolCall({ tool_use_id: "t1", tool_name: "Bash", tool_kind: { kind: "shell" }, summary: "ls -la", status: "executing", started_at: null });
    const { container } = render(ToolCard, { call, sessionId: "s1", serial: false });
    const icons = [...container.querySelectorAll("svg")];
    expect(icons.length).toBeGreaterThanOrEqual(2);
    for (const svg of icons) {
      expect(svg.getAttribute("aria-hidden")).toBe("true");
      expect(svg.textContent).toBe("");
    }
    expect(container.querySelector("svg.lucide-terminal")).not.toBeNull();
    const status = within(container).getByTestId("tool-status");
    expect(status.textContent).toBe("executing");
    expect(status.querySelector("svg.spin")).not.toBeNull();
    expect(within(container).getByTestId("tool-summary").textContent).toBe("ls -la");
  });

  it("shows the tool's name as the engine gives it, and its kind's icon", () => {
    const call = newToolCall({
      tool_use_id: "t2",
      tool_name: "mcp__docs__search",
      tool_kind: { kind: "mcp", server: "docs", tool: "search" },
      display_name: "docs - search (MCP)",
      summary: "query: icons",
      status: "completed",
      elapsed_ms: 5,
    });
    const { container } = render(ToolCard, { call, sessionId: "s1", serial: false });
    expect(container.querySelector("svg.lucide-plug")).not.toBeNull();
    expect(container.querySelector(".name")?.textContent).toBe("docs - search (MCP)");
    expect(within(container).getByTestId("tool-status").querySelector("svg.lucide-check")).not.toBeNull();
  });
});
