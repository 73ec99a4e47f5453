// Images in the composer: pasted or dropped files become chips (or a clear message), go with the
// prompt as `send_prompt`'s `images`, wait in the queue with it, come back when the engine refuses
// the prompt, and show on the prompt in the conversation (live and resumed).
import { describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/svelte";
import userEvent from "@testing-library/user-event";
import type { AttachedImage } from "../bindings/AttachedImage";
import type { FileTransfer } from "../lib/attachments";
import Conversation from "../lib/components/Conversation.svelte";
import { SessionStore } from "../lib/conversation/session.svelte";
import { liveSession, sessionInfo, type Handler } from "./live";
import { answered, said, userMessage } from "./messages";

// The first bytes of a PNG, and what send_prompt should carry for them.
const PNG_BYTES = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const PNG_BASE64 = "iVBORw0KGgoAAAAN";

const png = (name = "shot.png") => new File([PNG_BYTES], name, { type: "image/png" });

/** A file claiming `size` bytes without holding them (the checks read the size first). */
function sized(file: File, size: number): File {
  Object.defineProperty(file, "size", { value: size });
  return file;
}

/** A clipboard or a drag carrying these files (and text, when given), as the webview gives it. */
function carrying(files: File[], text?: string): FileTransfer & { getData: (type: string) => string } {
  return {
    files,
    items: files.map((file) => ({ kind: "file", getAsFile: () => file })),
    types: [...(files.length ? ["Files"] : []), ...(text === undefined ? [] : ["text/plain"])],
    getData: (type) => (type === "text/plain" ? (text ?? "") : ""),
  };
}

function setup(handlers: Record<string, Handler> = {}, session?: SessionStore) {
  const live = liveSession(sessionInfo(), handlers);
  const user = userEvent.setup();
  render(Conversation, { session: session ?? live.session, onclose: vi.fn() });
  const box = screen.getByTestId("prompt-input") as HTMLTextAreaElement;
  return { live, user, box };
}

const chips = () => screen.queryAllByTestId("attachment");
const chipNames = () => chips().map((c) => c.querySelector(".a-name")?.textContent);
const problem = () => screen.queryByTestId("attachment-problem");
const idle = () => expect(screen.getByTestId("turn-status").textContent?.trim()).toBe("idle");

describe("attaching images", () => {
  it("a pasted image becomes a chip with a thumbnail, its name and size; pasted text still pastes", async () => {
    const { user, box } = setup();
    const kept = await fireEvent.paste(box, { clipboardData: carrying([png()]) });
    expect(kept).toBe(false); // the image is taken, nothing is inserted as text
    await waitFor(() => expect(chips()).toHaveLength(1));
    const chip = chips()[0]!;
    expect(chip.textContent).toContain("shot.png");
    expect(chip.textContent).toContain("12 B");
    expect(chip.querySelector("img")!.getAttribute("src")).toBe(`data:image/png;base64,${PNG_BASE64}`);

    // Text on the clipboard is not intercepted, even when files come along: only images are taken.
    expect(await fireEvent.paste(box, { clipboardData: carrying([], "plain words") })).toBe(true);
    const copiedFile = new File(["%PDF"], "doc.pdf", { type: "application/pdf" });
    expect(await fireEvent.paste(box, { clipboardData: carrying([copiedFile], "/home/me/doc.pdf") })).toBe(true);
    expect(problem()).toBeNull();
    await user.click(box);
    await user.paste("fix this");
    expect(box.value).toBe("fix this");
    expect(chips()).toHaveLength(1);
  });

  it("a dropped PNG becomes a chip; the drop is taken so the webview does not open the file", async () => {
    const { box } = setup();
    expect(await fireEvent.dragOver(box, { dataTransfer: carrying([png("diagram.png")]) })).toBe(false);
    expect(await fireEvent.drop(box, { dataTransfer: carrying([png("diagram.png")]) })).toBe(false);
    await waitFor(() => expect(chipNames()).toEqual(["diagram.png"]));
  });

  it("refuses an SVG, a PDF and a text file with a clear message, keeping the typed text", async () => {
    const { user, box } = setup();
    await user.type(box, "what does it say");
    await fireEvent.drop(box, {
      dataTransfer: carrying([
        new File(["<svg/>"], "notes.svg", { type: "image/svg+xml" }),
        new File(["%PDF"], "doc.pdf", { type: "application/pdf" }),
        new File(["hi"], "todo.txt", { type: "text/plain" }),
      ]),
    });
    const alert = await screen.findByTestId("attachment-problem");
    expect(alert.getAttribute("role")).toBe("alert");
    expect([...alert.querySelectorAll("p")].map((p) => p.textContent)).toEqual([
      "notes.svg is not an image the model can read (PNG, JPEG, GIF or WebP)",
      "doc.pdf is not an image the model can read (PNG, JPEG, GIF or WebP)",
      "todo.txt is not an image the model can read (PNG, JPEG, GIF or WebP)",
    ]);
    expect(chips()).toHaveLength(0);
    expect(box.value).toBe("what does it say");
  });

  it("refuses an image over 30 MB and attaches the others of the same paste", async () => {
    const { box } = setup();
    await fireEvent.paste(box, { clipboardData: carrying([sized(png("big.png"), Math.round(41.2 * 1024 * 1024)), png("small.png")]) });
    await waitFor(() => expect(chipNames()).toEqual(["small.png"]));
    expect(problem()!.textContent).toContain("big.png is 41.2 MB; images up to 30 MB can be attached");
  });

  it("takes at most 20 images per prompt", async () => {
    const { box } = setup();
    await fireEvent.paste(box, { clipboardData: carrying(Array.from({ length: 21 }, (_, i) => png(`${i + 1}.png`))) });
    await waitFor(() => expect(chips()).toHaveLength(20));
    expect(problem()!.textContent).toContain("At most 20 images go with one prompt: 21.png was not attached");
  });

  it("removes a chip with its button", async () => {
    const { user, box } = setup();
    await fireEvent.paste(box, { clipboardData: carrying([png("a.png"), png("b.png")]) });
    await waitFor(() => expect(chips()).toHaveLength(2));
    await user.click(within(chips()[0]!).getByTestId("attachment-remove"));
    expect(chipNames()).toEqual(["b.png"]);
  });
});

describe("sending images", () => {
  it("sends the images with the prompt as name and base64, then clears the chips", async () => {
    const { live, user, box } = setup();
    await fireEvent.paste(box, { clipboardData: carrying([png()]) });
    await waitFor(() => expect(chips()).toHaveLength(1));
    await user.type(box, "what is wrong here?{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    const expected: AttachedImage[] = [{ name: "shot.png", data: PNG_BASE64 }];
    expect(live.called("send_prompt")[0]).toEqual(expect.objectContaining({ sessionId: "s1", prompt: "what is wrong here?", images: expected }));
    expect(chips()).toHaveLength(0);
    expect(box.value).toBe("");
  });

  it("sends images without text, with a placeholder text for the API", async () => {
    const { live, user, box } = setup();
    const send = screen.getByTestId("send-button") as HTMLButtonElement;
    expect(send.disabled).toBe(true);
    await fireEvent.paste(box, { clipboardData: carrying([png()]) });
    await waitFor(() => expect(send.disabled).toBe(false));
    await user.click(send);
    await waitFor(() => expect(live.turns).toHaveLength(1));
    expect(live.turns[0]!.prompt).toBe("(image)");
    expect(live.turns[0]!.images).toEqual([{ name: "shot.png", data: PNG_BASE64 }]);
  });

  it("a text-only prompt sends no images", async () => {
    const { live, user, box } = setup();
    await user.type(box, "hello{Enter}");
    await waitFor(() => expect(live.called("send_prompt")).toHaveLength(1));
    expect(live.called("send_prompt")[0]).toEqual(expect.objectContaining({ prompt: "hello", images: [] }));
  });

  it("keeps the text and the images when the engine refuses the prompt, and says why", async () => {
    const refusal = "shot.png is a BMP image; the model takes PNG, JPEG, GIF and WebP images";
    const { live, user, box } = setup({
      send_prompt: () => {
        throw refusal;
      },
    });
    await fireEvent.paste(box, { clipboardData: carrying([png()]) });
    await waitFor(() => expect(chips()).toHaveLength(1));
    await user.type(box, "look{Enter}");
    await waitFor(() => expect(problem()?.textContent).toContain(`Not sent: ${refusal}`));
    expect(box.value).toBe("look");
    expect(chipNames()).toEqual(["shot.png"]);
    expect(live.called("send_prompt")).toHaveLength(1);
    expect(screen.getAllByTestId("notice").map((n) => n.textContent)).toContain(refusal);
    idle();
  });

  it("a queued prompt keeps its images and sends them when its turn comes", async () => {
    const { live, user, box } = setup();
    await user.type(box, "one{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    await fireEvent.paste(box, { clipboardData: carrying([png("a.png"), png("b.png")]) });
    await waitFor(() => expect(chips()).toHaveLength(2));
    await user.type(box, "and these{Enter}");
    const queued = screen.getByTestId("queued-prompt");
    expect(queued.textContent).toContain("and these");
    expect(within(queued).getByTestId("queued-images").textContent).toBe("+2 images");
    expect(chips()).toHaveLength(0);

    live.turns[0]!.finish();
    await waitFor(() => expect(live.turns).toHaveLength(2));
    expect(live.turns[1]!.prompt).toBe("and these");
    expect(live.turns[1]!.images).toEqual([
      { name: "a.png", data: PNG_BASE64 },
      { name: "b.png", data: PNG_BASE64 },
    ]);
  });

  it("a built-in command does not swallow attached images", async () => {
    const { live, user, box } = setup();
    await fireEvent.paste(box, { clipboardData: carrying([png()]) });
    await waitFor(() => expect(chips()).toHaveLength(1));
    await user.type(box, "/compact{Enter}");
    expect(problem()!.textContent).toContain("/compact takes no images");
    expect(box.value).toBe("/compact");
    expect(chips()).toHaveLength(1);
    expect(live.called("compact_session")).toEqual([]);
  });
});

describe("images in the conversation", () => {
  const picture = { media_type: "image/png", data: PNG_BASE64 };

  it("a resumed session shows the prompt's image, never its base64 as text", () => {
    const session = new SessionStore(sessionInfo({ history: [said("what is this?", [picture]), answered("A PNG.")] }));
    setup({}, session);
    const message = screen.getByTestId("user-message");
    const image = within(message).getByTestId("user-image") as HTMLImageElement;
    expect(image.getAttribute("src")).toBe(`data:image/png;base64,${PNG_BASE64}`);
    expect(within(message).getByTestId("user-text").textContent).toBe("what is this?");
    expect(document.body.textContent).not.toContain(PNG_BASE64);
  });

  it("the prompt the engine echoes during a live turn shows its image; a click shows it full size", async () => {
    const { live, user, box } = setup();
    await user.type(box, "what is this?{Enter}");
    await waitFor(() => expect(live.turns).toHaveLength(1));
    live.turns[0]!.send(userMessage("what is this?", [picture]));
    const image = await screen.findByTestId("user-image");
    const button = image.closest("button")!;
    expect(button.getAttribute("aria-pressed")).toBe("false");
    await user.click(button);
    expect(button.getAttribute("aria-pressed")).toBe("true");
  });
});
