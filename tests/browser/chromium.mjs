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

// Block every request of `context` but the page's own files (file:, data:,
// about:), and list each blocked address in `blocked`: the pages must work
// offline and ask nothing of the network.
export async function offline(context, blocked) {
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("file:") || url.startsWith("data:") || url.startsWith("about:")) return route.continue();
    blocked.push(url);
    return route.abort();
  });
}

// A page of `browser` at `plan.url`, offline, its size `plan.width` x `plan.height` (else `size`),
// its script errors and console errors listed in `report.errors`, blocked requests in
// `report.blocked`: how every plan-driven script here opens the page it drives.
export async function openPlanPage(browser, plan, report, size, timeout) {
  const context = await browser.newContext({
    viewport: { width: plan.width ?? size.width, height: plan.height ?? size.height },
  });
  await offline(context, report.blocked);
  const page = await context.newPage();
  page.on("pageerror", (error) => report.errors.push(String(error)));
  page.on("console", (message) => {
    if (message.type() === "error") report.errors.push(message.text());
  });
  page.setDefaultTimeout(timeout);
  await page.goto(plan.url);
  return page;
}
