// Markdown for model output. The model's text is untrusted: Markdown is rendered first, then the
// HTML is sanitised with DOMPurify, so nothing (raw HTML in the Markdown included) reaches the DOM
// unsanitised. Links are kept as text-bearing anchors but never navigate by themselves
// (MarkdownView cancels clicks); only http(s) and mailto URLs survive.
import DOMPurify from "dompurify";
import { Marked, type Tokens } from "marked";
import { escapeHtml, highlight } from "./highlight";

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    code({ text, lang }: Tokens.Code) {
      const language = (lang ?? "").trim().split(/\s+/)[0]?.toLowerCase() || null;
      const body = highlight(text, language);
      const cls = language ? ` class="hljs language-${escapeHtml(language)}"` : ` class="hljs"`;
      return `<pre><code${cls}>${body}</code></pre>\n`;
    },
  },
});

const SAFE_URL = /^(?:https?:|mailto:)/i;

let hooksInstalled = false;
function installHooks() {
  if (hooksInstalled) return;
  hooksInstalled = true;
  DOMPurify.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A") {
      const href = node.getAttribute("href");
      if (href !== null && !SAFE_URL.test(href.trim())) node.removeAttribute("href");
      node.removeAttribute("target");
      node.setAttribute("rel", "noopener noreferrer nofollow");
      if (node.getAttribute("href")) node.setAttribute("title", node.getAttribute("href")!);
    }
  });
}

const PURIFY_CONFIG = {
  // Images would fetch remote URLs; forms, media and embeds have no place in a chat message.
  FORBID_TAGS: ["style", "img", "svg", "math", "form", "input", "button", "textarea", "select", "iframe", "object", "embed", "video", "audio", "source", "link", "meta", "base"],
  FORBID_ATTR: ["style", "srcset", "action", "formaction"],
  ALLOW_DATA_ATTR: false,
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
};

/** Sanitises arbitrary HTML with the chat-message policy. */
export function sanitize(html: string): string {
  installHooks();
  return DOMPurify.sanitize(html, PURIFY_CONFIG) as string;
}

/** Markdown → safe HTML. */
export function renderMarkdown(text: string): string {
  const html = marked.parse(text, { async: false }) as string;
  return sanitize(html);
}
