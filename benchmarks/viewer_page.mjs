// Times passviz's standalone viewer page in Debian's headless Chromium:
// opening it (navigation to the first drawn step) and stepping with →
// (key press to the step drawn and painted).  Prints JSON.
//
//   node viewer_page.mjs PAGE.html STEPS
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";

const require = createRequire(resolve("tests/browser/package.json"));
const { chromium } = require("playwright-core");
const [pagePath, stepsArg] = process.argv.slice(2);
const steps = Number(stepsArg || 40);

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run"],
});
const page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
const errors = [];
page.on("pageerror", (e) => errors.push(String(e)));
const start = Date.now();
await page.goto(pathToFileURL(pagePath).href);
await page.waitForSelector('.pv-viewer[data-rendered="-1"]', { timeout: 120000 });
await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
const open = (Date.now() - start) / 1000;
const nodes = await page.evaluate(() => document.querySelector(".pv-viewer").passvizViewer.drawnNodes().length);
await page.click(".pv-title");
const latencies = [];
for (let i = 0; i < steps; i++) {
  const ms = await page.evaluate(() => new Promise((done) => {
    const viewer = document.querySelector(".pv-viewer");
    const before = viewer.dataset.rendered;
    const t0 = performance.now();
    viewer.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight", bubbles: true }));
    viewer.passvizViewer.rendered.then(() => requestAnimationFrame(() => {
      done(viewer.dataset.rendered === before ? -1 : performance.now() - t0);
    }));
  }));
  if (ms < 0) break;
  latencies.push(ms);
}
await browser.close();
process.stdout.write(JSON.stringify({ open, nodes, latencies, errors }));
