// Opens a passviz page (file://, every other request blocked) in Debian's
// headless Chromium, runs a plan of actions against the viewer, and prints
// what it saw as JSON; the Python tests hold the expectations.
//
//   node inspect_page.mjs PLAN.json
//
// PLAN: {url, artifacts, width, height, actions: [...]} where an action is one of
//   {goto: N}                    window.passvizViewers[0].goto(N)
//   {key: "ArrowRight"}          press a key, then wait for the viewer to settle
//   {click: "selector"}          click the first element matching (inside the viewer)
//   {clickGraph: true}           click an empty spot of the graph canvas
//   {fill: "text"}               type into the timeline's search box
//   {check: "aria-label"}        click the checkbox with that aria-label
//   {inspect: "name"}            record window.passvizViewers[0].inspect() (and the window size,
//                                the ids Cytoscape draws and whether the sketch stands in)
//   {shot: "name"}               save a screenshot to ARTIFACTS/name.png
//   {text: "selector", as: "name"}  record the text of the first element matching (null if none)
import { launch, openPlanPage } from "./chromium.mjs";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const report = { errors: [], blocked: [], results: {} };
const TIMEOUT = 60000;

const browser = await launch();
try {
  const page = await openPlanPage(browser, plan, report, { width: 1400, height: 900 }, TIMEOUT);
  await page.waitForFunction(() => (window.passvizViewers ?? []).length > 0);
  const settle = () => page.evaluate(async () => {
    const viewer = window.passvizViewers[0];
    // Wait until the step asked for last is drawn and its camera move is done.
    for (let i = 0; i < 50; i++) {
      const pending = viewer.rendered;
      await pending;
      if (pending === viewer.rendered) break;
    }
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    // ...and the side panes have scrolled to it.
    for (let i = 0; i < 20 && viewer.scrolling; i++) {
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    }
  });
  await settle();
  for (const action of plan.actions) {
    if (action.goto !== undefined) {
      await page.evaluate((step) => window.passvizViewers[0].goto(step), action.goto);
    } else if (action.key) {
      await page.keyboard.press(action.key);
    } else if (action.click) {
      await page.locator(`.pv-viewer ${action.click}`).first().click();
    } else if (action.clickGraph) {
      const box = await page.locator(".pv-graph-canvas").first().boundingBox();
      await page.mouse.click(box.x + 5, box.y + box.height - 5);
    } else if (action.fill !== undefined) {
      await page.locator(".pv-search").first().fill(action.fill);
    } else if (action.check) {
      await page.locator(`input[aria-label="${action.check}"]`).first().click();
    } else if (action.inspect) {
      await settle();
      report.results[action.inspect] = await page.evaluate(() => ({
        ...window.passvizViewers[0].inspect(),
        window: { w: window.innerWidth, h: window.innerHeight },
        viewerBox: (() => {
          const r = document.querySelector(".pv-viewer").getBoundingClientRect();
          return { x: r.left, y: r.top, w: r.width, h: r.height };
        })(),
        title: document.querySelector(".pv-title").textContent,
        // what Cytoscape holds (the nodes in and around the view), and whether the sketch stands in
        drawn: window.passvizViewers[0].drawnNodes().map((n) => n.id),
        sketched: window.passvizViewers[0].sketched,
      }));
      continue;
    } else if (action.text) {
      await settle();
      report.results[action.as] = await page.evaluate(
        (selector) => document.querySelector(`.pv-viewer ${selector}`)?.textContent ?? null, action.text);
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
