// Opens an exported viewer page whose trace holds a very long string, selects
// the op that holds it, and reports as JSON on stdout how long the page took,
// how much text the IR and details panes hold before and after "show all".
//
//   node long_text.mjs PAGE.html OP_ID SCREENSHOT.png
import { launch } from "./chromium.mjs";
import { pathToFileURL } from "node:url";

const [page_path, op_id, screenshot_path] = process.argv.slice(2);

const browser = await launch();
const result = { errors: [] };
try {
  const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
  page.on("pageerror", (error) => result.errors.push(String(error)));
  const began = Date.now();
  await page.goto(pathToFileURL(page_path).href);
  await page.waitForSelector('.pv-viewer[data-rendered="-1"]', { timeout: 120000 });
  result.open_ms = Date.now() - began;
  const lengths = () =>
    page.evaluate(() => ({
      ir: document.querySelector(".pv-ir")?.textContent.length ?? -1,
      details: document.querySelector(".pv-details")?.textContent.length ?? -1,
      buttons: document.querySelectorAll(".pv-show-all").length,
    }));
  result.before_select = await lengths();
  await page.locator(`.pv-line[data-op="${op_id}"]`).first().click();
  await page.waitForTimeout(300);
  result.selected = await lengths();
  await page.screenshot({ path: screenshot_path });
  const clickAt = Date.now();
  await page.locator(".pv-details .pv-show-all").first().click();
  await page.waitForTimeout(300);
  result.show_all_ms = Date.now() - clickAt;
  result.shown_all = await lengths();
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(result));
