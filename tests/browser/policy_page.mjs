// Loads a page in Debian's headless Chromium with every network request blocked,
// clicks its #pv-submit button if it has one, and reports as JSON on stdout:
// whether an injected script ran (window.__pwned), whether the page's own script
// ran (READY, a selector), which requests left the page, and what the policy refused.
//
//   node policy_page.mjs PAGE.html READY_SELECTOR SCREENSHOT.png
import { launch, offline } from "./chromium.mjs";
import { pathToFileURL } from "node:url";

const [page_path, ready, screenshot_path] = process.argv.slice(2);

const browser = await launch();
const result = { blocked: [], errors: [], dialogs: [], refused: [] };
try {
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  await offline(context, result.blocked);
  const page = await context.newPage();
  page.on("pageerror", (error) => result.errors.push(String(error)));
  page.on("console", (message) => {
    if (message.text().includes("Content Security Policy")) result.refused.push(message.text());
  });
  page.on("dialog", (dialog) => {
    result.dialogs.push(dialog.message());
    return dialog.dismiss();
  });
  const start = pathToFileURL(page_path).href;
  await page.goto(start);
  result.ready = await page
    .waitForSelector(ready, { timeout: 15000 })
    .then(() => true)
    .catch(() => false);
  result.pwned = await page.evaluate(() => window.__pwned ?? null);
  if (await page.$("#pv-submit")) {
    // A real click: the form would post off the page unless form-action forbids it.
    await page.locator("#pv-submit").click({ noWaitAfter: true, timeout: 5000 });
  }
  await page.waitForTimeout(500);
  result.url_after = page.url();
  result.left_page = page.url() !== start;
  await page.screenshot({ path: screenshot_path });
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(result));
