// Headless Chromium for the end-to-end tests, the demo run and the browser benchmark: one
// executable and one flag list (no sandbox, no GPU, no background traffic).
import { chromium } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
  "--disable-quic",
];

/** Launches headless Chromium; resolves to playwright's Browser. */
export function launchChromium() {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** Pushes `page`'s uncaught errors and console errors onto `errors`. */
export function collectErrors(page, errors) {
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
}
