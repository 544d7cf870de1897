// Times passviz's standalone viewer page in Debian's headless Chromium.  Prints JSON.
//
//   node viewer_page.mjs PAGE.html open
//   node viewer_page.mjs PAGE.html step N [FROM]   N presses of → (one at a time), from step FROM
//                                                  (default: the first step drawn on opening)
//   node viewer_page.mjs PAGE.html jump N      N jumps to random steps (goto)
//   node viewer_page.mjs PAGE.html scrub S     → held down for S seconds (key repeat at 30 Hz)
//
// Presses and jumps each start from a settled viewer: the step before drawn,
// its side panes filled and its camera move done (`viewer.rendered`).
//
// A step counts as drawn when the viewer has drawn it and the browser has
// painted the next frame; the camera's glide to the change goes on after.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";

const require = createRequire(resolve("tests/browser/package.json"));
const { chromium } = require("playwright-core");
const [pagePath, mode, countArg, fromArg] = process.argv.slice(2);
const count = Number(countArg || 40);

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
await page.waitForSelector('.pv-viewer[data-rendered="-1"]', { timeout: 300000 });
await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
const open = (Date.now() - start) / 1000;
const result = { open, errors };
result.nodes = await page.evaluate(() => window.passvizViewers[0].inspect().nodes.length);
result.steps = await page.evaluate(() => window.passvizViewers[0].stepCount);
// Each press and jump starts from a settled viewer: the step before drawn and its camera move done.
await page.evaluate(() => window.passvizViewers[0].rendered);

if (mode === "step") {
  if (fromArg !== undefined) {
    await page.evaluate((step) => window.passvizViewers[0].goto(step), Number(fromArg));
    await page.evaluate(() => window.passvizViewers[0].rendered);
    result.nodes = await page.evaluate(() => window.passvizViewers[0].inspect().nodes.length);
  }
  result.latencies = [];
  for (let i = 0; i < count; i++) {
    const ms = await page.evaluate(() => new Promise((done) => {
      const viewer = document.querySelector(".pv-viewer");
      const before = viewer.dataset.rendered;
      const t0 = performance.now();
      viewer.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight", bubbles: true }));
      // Drawn and painted: the first frame after the viewer marks the step drawn.
      const painted = (tries) => requestAnimationFrame(() => {
        if (viewer.dataset.rendered !== before) done(performance.now() - t0);
        else if (tries > 0) painted(tries - 1);
        else done(-1);
      });
      painted(600);
    }));
    if (ms < 0) break;
    result.latencies.push(ms);
    await page.evaluate(() => window.passvizViewers[0].rendered);
  }
} else if (mode === "jump") {
  result.latencies = [];
  let seed = 12345;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let i = 0; i < count; i++) {
    const target = Math.floor(random() * result.steps);
    const ms = await page.evaluate((step) => new Promise((done) => {
      const viewer = window.passvizViewers[0];
      const t0 = performance.now();
      void viewer.goto(step);
      // Drawn and painted: the first frame after the viewer marks the step drawn (a step built in
      // the viewer's worker draws a few frames after the jump; the page paints meanwhile).
      const painted = (tries) => requestAnimationFrame(() => {
        if (viewer.node.dataset.rendered === String(step)) done(performance.now() - t0);
        else if (tries > 0) painted(tries - 1);
        else done(-1);
      });
      painted(600);
    }), target);
    if (ms >= 0) result.latencies.push(ms);
    await page.evaluate(() => window.passvizViewers[0].rendered);
  }
} else if (mode === "scrub") {
  Object.assign(result, await page.evaluate((seconds) => new Promise((done) => {
    const viewer = document.querySelector(".pv-viewer");
    const first = Number(viewer.dataset.rendered);
    const gaps = [];
    let last = performance.now();
    let holding = true;
    const frame = (now) => {
      gaps.push(now - last);
      last = now;
      if (holding) requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
    // A busy page runs the timer late and skips ticks: count the presses it made.
    let pressed = 0;
    const timer = setInterval(() => {
      pressed += 1;
      viewer.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight", bubbles: true, repeat: true }));
    }, 1000 / 30);
    setTimeout(() => {
      clearInterval(timer);
      holding = false;
      viewer.dispatchEvent(new KeyboardEvent("keyup", { key: "ArrowRight", bubbles: true }));
      gaps.sort((a, b) => a - b);
      done({
        pressed,
        advanced: Number(viewer.dataset.rendered) - first,
        frames: gaps.length,
        frameGapP95: gaps[Math.floor(0.95 * (gaps.length - 1))],
      });
    }, seconds * 1000);
  }), count));
}
await browser.close();
process.stdout.write(JSON.stringify(result));
