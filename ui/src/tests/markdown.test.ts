import { describe, expect, it } from "vitest";
import { render } from "@testing-library/svelte";
import { renderMarkdown } from "../lib/markdown";
import MarkdownView from "../lib/components/MarkdownView.svelte";

function dom(html: string): HTMLElement {
  const div = document.createElement("div");
  div.innerHTML = html;
  return div;
}

describe("renderMarkdown sanitises untrusted model output", () => {
  it("renders ordinary Markdown", () => {
    const d = dom(renderMarkdown("# Title\n\nSome **bold** and `code`.\n\n- a\n- b"));
    expect(d.querySelector("h1")?.textContent).toBe("Title");
    expect(d.querySelector("strong")?.textContent).toBe("bold");
    expect(d.querySelectorAll("li")).toHaveLength(2);
  });

  it("removes script tags, raw or inside Markdown", () => {
    const html = renderMarkdown("hello <script>alert(1)</script>\n\n<script src=x></script>");
    expect(dom(html).querySelector("script")).toBeNull();
    expect(html).not.toMatch(/<script/i);
  });

  it("removes on* event handler attributes", () => {
    const html = renderMarkdown('<div onclick="alert(1)" onmouseover="x()">hi</div><b onerror=alert(2)>b</b>');
    const d = dom(html);
    for (const el of d.querySelectorAll("*")) {
      for (const attr of el.attributes) expect(attr.name.startsWith("on")).toBe(false);
    }
    expect(d.textContent).toContain("hi");
  });

  it("removes javascript: and data: link targets, keeps http links without a target", () => {
    const d = dom(
      renderMarkdown('[a](javascript:alert(1)) <a href="JaVaScRiPt:alert(2)">b</a> [c](data:text/html,<b>x</b>) [d](https://example.com) <a href="https://x.org" target="_blank">e</a>'),
    );
    const links = [...d.querySelectorAll("a")];
    const hrefs = links.map((a) => a.getAttribute("href"));
    expect(hrefs.filter((h) => h && /^(javascript|data):/i.test(h.trim()))).toEqual([]);
    expect(hrefs).toContain("https://example.com");
    expect(links.every((a) => !a.hasAttribute("target"))).toBe(true);
  });

  it("removes images, iframes, styles and style attributes", () => {
    const html = renderMarkdown('![x](https://track.example/p.png) <iframe src="https://x"></iframe><style>*{}</style><p style="color:red">s</p>');
    const d = dom(html);
    expect(d.querySelector("img, iframe, style")).toBeNull();
    expect(d.querySelector("[style]")).toBeNull();
  });

  it("highlights fenced code by language", () => {
    const d = dom(renderMarkdown("```rust\nfn main() { let x = 1; }\n```"));
    const code = d.querySelector("pre code");
    expect(code?.classList.contains("language-rust")).toBe(true);
    expect(code?.querySelector(".hljs-keyword")?.textContent).toBe("fn");
  });

  it("escapes HTML inside code blocks instead of rendering it", () => {
    const d = dom(renderMarkdown("```\n<img src=x onerror=alert(1)>\n```"));
    expect(d.querySelector("img")).toBeNull();
    expect(d.querySelector("code")?.textContent).toContain("<img src=x onerror=alert(1)>");
  });
});

describe("MarkdownView", () => {
  it("cancels link clicks so model output cannot navigate", () => {
    const { getByText } = render(MarkdownView, { text: "[go](https://example.com)" });
    const ev = new MouseEvent("click", { bubbles: true, cancelable: true });
    getByText("go").dispatchEvent(ev);
    expect(ev.defaultPrevented).toBe(true);
  });
});
