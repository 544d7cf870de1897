// Opens a side-by-side page (`passviz diverge A B --html`; file://, every other
// request blocked) in Debian's headless Chromium, runs a plan of actions
// against it and prints what it saw as JSON; the Python test holds the
// expectations.
//
//   node side_by_side.mjs PLAN.json
//
// PLAN: {url, artifacts, width, height, actions: [...]} where an action is one of
//   {key: "ArrowRight", side: 0|1}   click side's title bar (the viewer takes the keyboard), press a key
//   {press: "d"}                     press a key wherever the keyboard is
//   {click: "selector"}              click the first element matching on the page
//   {row: N, side: 0|1}              click step N in side's timeline
//   {select: "selector", value: V}   choose V in a <select>
//   {inspect: "name"}                record window.passvizPair.inspect(), both viewers' steps,
//                                    titles and IR text
//   {shot: "name"}                   save a screenshot to ARTIFACTS/name.png
import { launch, openPlanPage } from "./chromium.mjs";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const report = { errors: [], blocked: [], results: {} };
const TIMEOUT = 60000;

const browser = await launch();
try {
  const page = await openPlanPage(browser, plan, report, { width: 1800, height: 1000 }, TIMEOUT);
  await page.waitForFunction(() => window.passvizPair !== undefined);
  const settle = () => page.evaluate(async () => {
    const pair = window.passvizPair;
    if (!pair) return;
    await pair.rendered;
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    for (let i = 0; i < 20 && pair.viewers.some((v) => v.scrolling); i++) {
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    }
  });
  await settle();
  report.results.loaded = await page.evaluate(() => ({
    pair: window.passvizPair !== null,
    error: document.querySelector(".pv-error")?.textContent ?? null,
  }));
  for (const action of plan.actions) {
    if (action.key) {
      await page.locator(".pv-viewer .pv-title").nth(action.side).click();
      await page.keyboard.press(action.key);
    } else if (action.press) {
      await page.keyboard.press(action.press);
    } else if (action.click) {
      await page.locator(action.click).first().click();
    } else if (action.row !== undefined) {
      await page.locator(".pv-pair-side").nth(action.side).locator(`.pv-steps .pv-step[data-step="${action.row}"]`).click();
    } else if (action.select) {
      await page.locator(action.select).first().selectOption(String(action.value));
    } else if (action.inspect) {
      await settle();
      report.results[action.inspect] = await page.evaluate(() => {
        const pair = window.passvizPair;
        return {
          ...pair.inspect(),
          viewers: pair.viewers.map((v) => ({
            step: v.step,
            title: v.node.querySelector(".pv-title").textContent,
            irText: v.inspect().irText,
            box: (() => {
              const r = v.node.getBoundingClientRect();
              return { x: r.left, y: r.top, w: r.width, h: r.height };
            })(),
          })),
          focused: pair.viewers.findIndex((v) => v.node.contains(document.activeElement)),
        };
      });
      continue;
    } else if (action.shot) {
      await settle();
      await page.screenshot({ path: join(plan.artifacts, `${action.shot}.png`) });
      continue;
    }
    await settle();
  }
} catch (error) {
  report.errors.push(String(error && error.stack ? error.stack : error));
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(report));
