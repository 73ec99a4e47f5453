import { defineConfig } from "vitest/config";
import { svelte } from "@sveltejs/vite-plugin-svelte";
import { svelteTesting } from "@testing-library/svelte/vite";
import license from "rollup-plugin-license";

/** The file the build lists the third-party code it bundled in (name, version, licence and its
 *  text), for the packages to ship beside the app: MIT, BSD and the like ask for their notice to go
 *  with every copy. Only what the bundle holds is listed, not every dependency installed. Emitted
 *  into the bundle, so it lands in whatever folder the build writes (scripts/build-ui.sh builds
 *  into a temporary one and compares). */
const NOTICES = "THIRD-PARTY-NOTICES.txt";

/** The notices' text, written by the licence plugin's scan and emitted after it. */
let noticesText = "";

/** One entry of the notices file. */
function notice(d: license.Dependency): string {
  const head = `${d.name ?? "(unnamed)"} ${d.version ?? ""}`.trim();
  const text = d.licenseText?.trim() || `(The package names its licence, ${d.license ?? "none"}, but ships no licence file.)`;
  const extra = d.noticeText?.trim() ? `\n\n${d.noticeText.trim()}` : "";
  return `${head}\nLicense: ${d.license ?? "unknown"}\n\n${text}${extra}`;
}

// Tauri serves the built files from its own origin, so the default base "/" is right.
export default defineConfig(({ mode, command }) => ({
  // Under Vitest the components inject their styles, so tests can read computed layout rules
  // (jsdom has no layout, but it does apply the cascade); the build keeps CSS in files.
  plugins: [
    svelte(mode === "test" ? { compilerOptions: { css: "injected" } } : {}),
    svelteTesting(),
    command === "build" &&
      license({
        thirdParty: (dependencies) => {
          noticesText =
            [
              "Third-party software bundled in Nerve's user interface, with the licence of each.",
              ...[...dependencies].sort((a, b) => (a.name ?? "").localeCompare(b.name ?? "")).map(notice),
            ].join(`\n\n${"-".repeat(78)}\n\n`) + "\n";
        },
      }),
    command === "build" && {
      name: "nerve-third-party-notices",
      generateBundle: {
        // After the licence plugin's own generateBundle, which scans the bundle.
        order: "post" as const,
        handler(this: { emitFile: (file: { type: "asset"; fileName: string; source: string }) => string }) {
          this.emitFile({ type: "asset", fileName: NOTICES, source: noticesText });
        },
      },
    },
  ],
  // Keep Rust/Tauri output visible when both run in one terminal.
  clearScreen: false,
  server: {
    port: 5173,
    strictPort: true,
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // WebKitGTK on Linux, WKWebView on macOS: stay at a Safari-16 feature level.
    target: "safari16",
    // A strict CSP (script-src 'self') forbids inline module preload polyfills.
    modulePreload: { polyfill: false },
    // Always emit CSS as files; the CSP allows styles only from 'self'.
    cssCodeSplit: false,
    assetsInlineLimit: 0,
  },
  test: {
    environment: "jsdom",
    include: ["src/**/*.test.ts"],
    setupFiles: ["src/tests/setup.ts"],
    // A guard against hangs, not a speed check: the heaviest tests (a long conversation drawn in
    // jsdom, a large message rendered block by block) take 4-6 s on a 2-core machine, near the 5 s
    // default, and failed there under load.
    testTimeout: 30_000,
    // Every core: Vitest's default leaves one idle, which on a 2-core machine runs the files one at
    // a time (the test command's UI stage took 100 s instead of 70).
    maxWorkers: "100%",
  },
}));
