// Images attached to a prompt: the composer's quick checks and the file reading. The engine checks
// every image again (it sniffs the bytes, and downscales large ones); these checks only exist so
// that an obvious mistake (a PDF, a 40 MB screenshot) is said at once, where the user dropped it,
// instead of when the prompt is sent.
import type { AttachedImage } from "../bindings/AttachedImage";
import type { MessageImage } from "../bindings/MessageImage";

/** The image types the model reads (the API's list). */
export const IMAGE_MEDIA_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;

/** The engine's limits (`MAX_ATTACHED_IMAGE_BYTES`, `MAX_IMAGES_PER_PROMPT`). */
export const MAX_IMAGE_BYTES = 30 * 1024 * 1024;
export const MAX_IMAGES_PER_PROMPT = 20;

/** Sent as the prompt's text when only images are: the API rejects an empty text block. */
export const IMAGE_ONLY_PROMPT = "(image)";

/** An image in the composer or in a queued prompt: what is sent, and what its chip shows. */
export interface Attachment {
  /** Tells chips apart (two pastes may both be "image.png"). */
  id: number;
  name: string;
  /** From the file (or its extension): the live thumbnail's type. */
  mediaType: string;
  /** The file's size in bytes. */
  size: number;
  /** The file's bytes, base64, without a `data:` prefix. */
  data: string;
}

/** What the checks need of a file (a `File` has all of it). */
export interface FileFacts {
  name: string;
  type: string;
  size: number;
}

const BY_EXTENSION: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
};

const MIB = 1024 * 1024;

/** The file's media type; a dropped file may come without one, and then its extension tells. */
export function mediaTypeOf(file: FileFacts): string {
  if (file.type) return file.type;
  const extension = file.name.split(".").pop()?.toLowerCase() ?? "";
  return BY_EXTENSION[extension] ?? "";
}

export function isImageMediaType(mediaType: string): boolean {
  return (IMAGE_MEDIA_TYPES as readonly string[]).includes(mediaType);
}

/** A file's name for messages; a pasted screenshot may have none. */
export function displayName(file: FileFacts): string {
  return file.name || "pasted image";
}

/** Why this file cannot be attached, or null when it can (as far as the composer can tell). */
export function imageProblem(file: FileFacts): string | null {
  const name = displayName(file);
  if (!isImageMediaType(mediaTypeOf(file))) {
    return `${name} is not an image the model can read (PNG, JPEG, GIF or WebP)`;
  }
  if (file.size > MAX_IMAGE_BYTES) {
    return `${name} is ${(file.size / MIB).toFixed(1)} MB; images up to ${MAX_IMAGE_BYTES / MIB} MB can be attached`;
  }
  return null;
}

/**
 * Splits files into those to attach and messages about the rest. `room` is how many more images
 * the prompt can take; files beyond it are named in one message.
 */
export function checkImages<F extends FileFacts>(files: F[], room: number): { accepted: F[]; problems: string[] } {
  const accepted: F[] = [];
  const problems: string[] = [];
  const leftOut: string[] = [];
  for (const file of files) {
    const problem = imageProblem(file);
    if (problem) problems.push(problem);
    else if (accepted.length < room) accepted.push(file);
    else leftOut.push(displayName(file));
  }
  if (leftOut.length) {
    const who = leftOut.length === 1 ? `${leftOut[0]} was` : `${leftOut[0]} and ${leftOut.length - 1} more were`;
    problems.push(`At most ${MAX_IMAGES_PER_PROMPT} images go with one prompt: ${who} not attached`);
  }
  return { accepted, problems };
}

/**
 * Base64 of some bytes. `String.fromCharCode` takes its arguments on the stack, so the bytes go in
 * slices small enough for any engine; the binary string is then encoded in one `btoa`.
 */
export function bytesToBase64(bytes: Uint8Array): string {
  const CHUNK = 0x8000;
  let binary = "";
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  }
  return btoa(binary);
}

async function bytesOf(file: Blob): Promise<Uint8Array> {
  if (typeof file.arrayBuffer === "function") return new Uint8Array(await file.arrayBuffer());
  // Older webviews lack Blob.arrayBuffer.
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(new Uint8Array(reader.result as ArrayBuffer));
    reader.onerror = () => reject(reader.error ?? new Error("the file could not be read"));
    reader.readAsArrayBuffer(file);
  });
}

/** Reads a checked file into an attachment. */
export async function readAttachment(file: File, id: number): Promise<Attachment> {
  return {
    id,
    name: displayName(file),
    mediaType: mediaTypeOf(file),
    size: file.size,
    data: bytesToBase64(await bytesOf(file)),
  };
}

/** What is read of a paste's or a drop's `DataTransfer` (which fits it). */
export interface FileTransfer {
  items?: ArrayLike<{ kind: string; getAsFile(): File | null }>;
  files?: ArrayLike<File>;
  types?: readonly string[];
}

/** The files a paste or a drop carries. Some webviews list a pasted screenshot only among the
 *  items, not the files, so the items are asked first. */
export function filesOf(transfer: FileTransfer | null | undefined): File[] {
  if (!transfer) return [];
  const fromItems = Array.from(transfer.items ?? [])
    .filter((item) => item.kind === "file")
    .map((item) => item.getAsFile())
    .filter((file): file is File => file !== null);
  if (fromItems.length) return fromItems;
  return Array.from(transfer.files ?? []);
}

/** Whether a drag carries files (other drags, such as selected text, are left alone). */
export function dragHasFiles(transfer: FileTransfer | null | undefined): boolean {
  return !!transfer?.types?.includes("Files");
}

/** What `send_prompt` takes. */
export function toAttachedImages(attachments: Attachment[]): AttachedImage[] {
  return attachments.map(({ name, data }) => ({ name, data }));
}

/** A size for a chip: "820 KB", "3.4 MB". */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < MIB) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / MIB).toFixed(1)} MB`;
}

/** "+1 image", "+3 images": a queued prompt's images. */
export function imageCount(count: number): string {
  return `+${count} image${count === 1 ? "" : "s"}`;
}

// Base64 only: anything else in the data must not be able to break out of the URL.
const BASE64 = /^[A-Za-z0-9+/=\s]*$/;

/** Whether an image (from the engine or a transcript) is safe and sensible to show as a data URL. */
export function isShowableImage(image: { media_type: string; data: string }): boolean {
  return isImageMediaType(image.media_type) && BASE64.test(image.data);
}

export function dataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data.replace(/\s/g, "")}`;
}

/** A sent prompt's images as attachments again (an edited prompt is resent with them): only those
 *  the model reads, named by their place ("image 2"); the size is the bytes the base64 holds. */
export function attachmentsOf(images: MessageImage[]): Attachment[] {
  return images.flatMap((image, i) => {
    if (!isShowableImage(image)) return [];
    const data = image.data.replace(/\s/g, "");
    const size = Math.floor((data.replace(/=+$/, "").length * 3) / 4);
    return [{ id: i + 1, name: `image ${i + 1}`, mediaType: image.media_type, size, data }];
  });
}
