// Launching Debian's headless Chromium as every browser test does: no sandbox
// (containers), no GPU, and none of the browser's own background traffic, so
// that the only requests are the page's. Shared by the scripts in this folder.
import { chromium } from "playwright-core";

export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
