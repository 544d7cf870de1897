// Drives TraceWidget's run panel in JupyterLab, in Debian's headless Chromium,
// and reports what it saw as JSON on stdout; tests/test_run_panel_browser.py
// holds the expectations.
//
//   node run_panel.mjs PLAN.json
//
// PLAN: {url, artifacts, inputs}: `url` opens a notebook whose cells show a
// TraceWidget `w`; the panel's inputs are replaced by `inputs`, Bisect runs,
// the link goes to the step found, and Run on CPU runs that step; the GPU button's state is read.
import { launch } from "./chromium.mjs";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { KERNEL_TIMEOUT, runAllCells } from "./jupyterlab.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const report = { errors: [] };
const TIMEOUT = 60000;

const browser = await launch();

async function shot(page, name) {
  await page.screenshot({ path: join(plan.artifacts, `${name}.png`) });
}

// What `code` prints, run on the notebook's kernel directly (no new cell to click into).
async function kernelPrint(page, code) {
  return page.evaluate(async (source) => {
    const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
    const future = kernel.requestExecute({ code: source, silent: false, store_history: false });
    let out = "";
    future.onIOPub = (msg) => {
      if (msg.header.msg_type === "stream") out += msg.content.text;
      if (msg.header.msg_type === "error") out += `${msg.content.ename}: ${msg.content.evalue}`;
    };
    await future.done;
    return out;
  }, code);
}

// The widget's viewer once it has drawn `step`.
async function rendered(page, step) {
  await page.waitForSelector(`.pv-widget .pv-viewer[data-rendered="${step}"]`, { timeout: TIMEOUT });
}

// The panel's result once the run asked for is over (the buttons are enabled again).
async function result(page) {
  await page.waitForSelector(".pv-runpanel:not(.pv-busy) .pv-run-result > *", { timeout: KERNEL_TIMEOUT });
  return page.evaluate(() => {
    const panel = document.querySelector(".pv-runpanel");
    const text = (s) => panel.querySelector(s)?.textContent ?? null;
    return {
      verdict: text(".pv-run-verdict strong"),
      line: text(".pv-run-verdict"),
      differences: text(".pv-run-differences"),
      error: text(".pv-run-error"),
      goto: panel.querySelector(".pv-run-goto")?.dataset.step ?? null,
    };
  });
}

let page = null;
try {
  const context = await browser.newContext({ viewport: { width: 1500, height: 950 } });
  page = await context.newPage();
  page.on("pageerror", (error) => report.errors.push(String(error)));
  await runAllCells(page, plan.url, TIMEOUT);
  await rendered(page, -1);
  // The panel is in the widget only; it asks the kernel for inputs when opened.
  report.panels = await page.locator(".pv-runpanel").count();
  await page.locator(".pv-runpanel > summary").click();
  const inputs = page.locator(".pv-run-inputs");
  await page.waitForFunction(() => document.querySelector(".pv-run-inputs")?.value.length > 0, null, { timeout: KERNEL_TIMEOUT });
  report.derived_inputs = await inputs.inputValue();
  // The GPU button: present, and disabled with the reason in its title where the kernel lacks pycuda.
  await page.waitForFunction(() => !document.querySelector(".pv-run-gpu")?.title.includes("not checked"), null, { timeout: KERNEL_TIMEOUT });
  report.gpu = await page.locator(".pv-run-gpu").evaluate((b) => ({ text: b.textContent, disabled: b.disabled, title: b.title }));
  await inputs.fill(plan.inputs);
  // Bisect: progress while the kernel works, then the verdict and a link to the step found.
  await page.locator(".pv-run-bisect").click();
  report.busy_seen = await page.locator(".pv-runpanel.pv-busy").count();
  report.bisect = await result(page);
  await shot(page, "lab-run-panel-bisect");
  await page.locator(".pv-run-goto").click();
  await rendered(page, Number(report.bisect.goto));
  report.step_after_link = Number(await page.locator(".pv-widget .pv-viewer").first().getAttribute("data-rendered"));
  // Run on CPU at the step the link went to.
  await page.locator(".pv-run-cpu").click();
  report.run = await result(page);
  await rendered(page, report.step_after_link);
  report.runs_listed = await page.locator(".pv-widget .pv-runs .pv-run").count();
  report.row_marks = await page.locator(".pv-widget .pv-step .pv-row-run").evaluateAll(
    (marks) => marks.map((m) => [m.closest(".pv-step").dataset.step, m.textContent]));
  await page.locator(".pv-runpanel").scrollIntoViewIfNeeded();
  await shot(page, "lab-run-panel");
  report.python_runs = await kernelPrint(page, "print(len(w.runs), w.runs[-1]['step'], w.runs[-1]['verdict'], w.step)");
} catch (error) {
  report.failure = String(error && error.stack || error);
  if (page) await shot(page, "lab-run-panel-failure").catch(() => undefined);
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(report));
