// The composer's image checks and encoding (../lib/attachments.ts) and the first run's local
// server helpers (../lib/localServer.ts): pure functions, tested directly.
import { describe, expect, it } from "vitest";
import type { ModelListing } from "../bindings/ModelListing";
import {
  attachmentsOf,
  bytesToBase64,
  checkImages,
  filesOf,
  formatSize,
  imageCount,
  imageProblem,
  isShowableImage,
  mediaTypeOf,
  readAttachment,
  toAttachedImages,
  type FileFacts,
} from "../lib/attachments";
import { describeModels } from "../lib/localServer";

const MB = 1024 * 1024;
const facts = (name: string, type: string, size = 1000): FileFacts => ({ name, type, size });

describe("image checks", () => {
  it("accepts the four types the model reads, by type or, without one, by extension", () => {
    for (const type of ["image/png", "image/jpeg", "image/gif", "image/webp"]) expect(imageProblem(facts("a", type))).toBeNull();
    expect(mediaTypeOf(facts("Shot.JPG", ""))).toBe("image/jpeg");
    expect(imageProblem(facts("shot.webp", ""))).toBeNull();
  });

  it("names what it refuses and why", () => {
    const notAnImage = (name: string) => `${name} is not an image the model can read (PNG, JPEG, GIF or WebP)`;
    expect(imageProblem(facts("notes.svg", "image/svg+xml"))).toBe(notAnImage("notes.svg"));
    expect(imageProblem(facts("doc.pdf", "application/pdf"))).toBe(notAnImage("doc.pdf"));
    expect(imageProblem(facts("old.bmp", "image/bmp"))).toBe(notAnImage("old.bmp"));
    expect(imageProblem(facts("scan.tiff", "image/tiff"))).toBe(notAnImage("scan.tiff"));
    expect(imageProblem(facts("readme", ""))).toBe(notAnImage("readme"));
    expect(imageProblem(facts("", "text/plain"))).toBe(notAnImage("pasted image"));
    expect(imageProblem(facts("big.png", "image/png", 41.2 * MB))).toBe("big.png is 41.2 MB; images up to 30 MB can be attached");
    expect(imageProblem(facts("edge.png", "image/png", 30 * MB))).toBeNull();
  });

  it("takes as many as there is room for and names the ones left out", () => {
    const files = ["a.png", "b.png", "c.png", "d.png"].map((n) => facts(n, "image/png"));
    expect(checkImages(files, 4)).toEqual({ accepted: files, problems: [] });
    expect(checkImages(files, 3).problems).toEqual(["At most 20 images go with one prompt: d.png was not attached"]);
    const some = checkImages([...files, facts("x.pdf", "application/pdf")], 1);
    expect(some.accepted).toEqual([files[0]]);
    expect(some.problems).toEqual([
      "x.pdf is not an image the model can read (PNG, JPEG, GIF or WebP)",
      "At most 20 images go with one prompt: b.png and 2 more were not attached",
    ]);
  });
});

describe("encoding", () => {
  it("gives the same base64 as one big string would, for data larger than one chunk", () => {
    const bytes = new Uint8Array(200_003).map((_, i) => (i * 7919) % 256);
    // The plain way, one character per byte, as the reference.
    expect(bytesToBase64(bytes)).toBe(btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join("")));
    expect(bytesToBase64(new Uint8Array())).toBe("");
  });

  it("reads a file into an attachment and sends only its name and data", async () => {
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const attachment = await readAttachment(new File([bytes], "shot.png", { type: "image/png" }), 4);
    const data = "iVBORwECAw==";
    expect(attachment).toEqual({ id: 4, name: "shot.png", mediaType: "image/png", size: 7, data });
    expect(toAttachedImages([attachment])).toEqual([{ name: "shot.png", data }]);
  });

  it("finds pasted files among the items first, else among the files", () => {
    const file = new File(["x"], "a.png", { type: "image/png" });
    const items = [{ kind: "string", getAsFile: () => null }, { kind: "file", getAsFile: () => file }];
    expect(filesOf({ items, files: [] })).toEqual([file]);
    expect(filesOf({ items: [], files: [file] })).toEqual([file]);
    expect(filesOf(null)).toEqual([]);
  });

  it("shows only base64 images of the four types", () => {
    expect(isShowableImage({ media_type: "image/png", data: "iVBORw0KGgo=" })).toBe(true);
    expect(isShowableImage({ media_type: "image/svg+xml", data: "PHN2Zz4=" })).toBe(false);
    expect(isShowableImage({ media_type: "image/png", data: '"><script>' })).toBe(false);
  });

  it("turns a sent prompt's images into attachments again, leaving out those the model does not read", () => {
    const images = [
      { media_type: "image/png", data: "iVBO\nRw0K" },
      { media_type: "image/svg+xml", data: "PHN2Zz4=" },
      { media_type: "image/jpeg", data: "/9j/4A==" },
    ];
    expect(attachmentsOf(images)).toEqual([
      { id: 1, name: "image 1", mediaType: "image/png", size: 6, data: "iVBORw0K" },
      { id: 3, name: "image 3", mediaType: "image/jpeg", size: 4, data: "/9j/4A==" },
    ]);
  });

  it("words sizes and counts", () => {
    expect([formatSize(512), formatSize(840 * 1024), formatSize(3.4 * MB)]).toEqual(["512 B", "840 KB", "3.4 MB"]);
    expect([imageCount(1), imageCount(2)]).toEqual(["+1 image", "+2 images"]);
  });
});

describe("local model server", () => {
  it("says how many models the server offers", () => {
    const model = (id: string): ModelListing => ({ id, display_name: null, context_window: null, price: null, thinking: null });
    expect(describeModels([])).toContain("offers no models yet");
    expect(describeModels([model("llama3.2")])).toBe("The server offers 1 model: llama3.2.");
    const many = ["a", "b", "c", "d", "e", "f", "g"].map(model);
    expect(describeModels(many)).toBe("The server offers 7 models: a, b, c, d, e, and 2 more.");
  });
});
