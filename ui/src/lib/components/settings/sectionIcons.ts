// The icon of each settings section, shown in its heading and in the section list.
import type { LucideIcon } from "@lucide/svelte";
import Bell from "@lucide/svelte/icons/bell";
import BookOpenText from "@lucide/svelte/icons/book-open-text";
import Bot from "@lucide/svelte/icons/bot";
import FlaskConical from "@lucide/svelte/icons/flask-conical";
import Info from "@lucide/svelte/icons/info";
import Keyboard from "@lucide/svelte/icons/keyboard";
import Palette from "@lucide/svelte/icons/palette";
import Plug from "@lucide/svelte/icons/plug";
import Server from "@lucide/svelte/icons/server";
import ShieldCheck from "@lucide/svelte/icons/shield-check";
import SlidersHorizontal from "@lucide/svelte/icons/sliders-horizontal";
import Webhook from "@lucide/svelte/icons/webhook";
import type { SectionId } from "./sections";

export const SECTION_ICONS: Record<SectionId, LucideIcon> = {
  "model-server": Server,
  defaults: SlidersHorizontal,
  notifications: Bell,
  keyboard: Keyboard,
  rules: ShieldCheck,
  tester: FlaskConical,
  mcp: Plug,
  hooks: Webhook,
  definitions: Bot,
  memory: BookOpenText,
  appearance: Palette,
  about: Info,
};
