// Drives passviz's trace viewer in Debian's headless Chromium and reports what
// it saw as JSON on stdout; the Python tests hold the expectations.
//
//   node viewer_e2e.mjs PLAN.json
//
// PLAN: {mode: "standalone" | "lab", url, artifacts, step, ...}
//   standalone: loads `url` (file://) with every other request blocked.
//   lab: `url` is JupyterLab's notebook URL with its token; runs the notebook,
//        checks the MIME viewer and the TraceWidget (Python drives `w.step`),
//        then opens `trace_file` from the file browser.
import { launch, offline } from "./chromium.mjs";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { KERNEL_TIMEOUT, allRun, runAllCells } from "./jupyterlab.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const report = { errors: [], dialogs: [], blocked: [] };
const TIMEOUT = 60000;

const browser = await launch();

async function shot(page, name) {
  await page.screenshot({ path: join(plan.artifacts, `${name}.png`) });
}

// The viewer under `scope` (a CSS selector) once it has drawn `step`.
async function rendered(page, scope, step) {
  const selector = `${scope} .pv-viewer[data-rendered="${step}"]`;
  await page.waitForSelector(selector, { timeout: TIMEOUT });
  return page.locator(selector).first();
}

async function drawn(viewer) {
  return viewer.evaluate((node) => ({
    step: Number(node.dataset.rendered),
    nodes: node.passvizViewer.drawnNodes(),
    edges: node.passvizViewer.drawnEdges(),
    title: node.querySelector(".pv-title").textContent,
  }));
}

// Pick step k in the timeline, read the graph, press → and read it again.
async function stepThrough(page, scope, name) {
  const k = plan.step;
  await page.locator(`${scope} .pv-step[data-step="${k}"]`).first().click();
  const atK = await drawn(await rendered(page, scope, k));
  await shot(page, `${name}-step${k}`);
  await page.locator(`${scope} .pv-title`).first().click();
  await page.keyboard.press("ArrowRight");
  const next = await drawn(await rendered(page, scope, k + 1));
  await shot(page, `${name}-step${k + 1}`);
  // `/` focuses the search box; typing filters the timeline.
  await page.locator(`${scope} .pv-title`).first().click();
  await page.keyboard.press("/");
  const searchFocused = await page.evaluate(() => document.activeElement?.classList.contains("pv-search") ?? false);
  await page.keyboard.type("Canonicalize");
  const visibleRows = await page.locator(`${scope} .pv-step:visible`).count();
  await page.keyboard.press("Control+a");
  await page.keyboard.press("Backspace");
  await page.keyboard.press("Escape");
  return { atK, next, searchFocused, visibleRows };
}

async function standalone(context, page) {
  await offline(context, report.blocked);
  await page.goto(plan.url);
  await rendered(page, "body", -1);
  await shot(page, "standalone-initial");
  Object.assign(report, await stepThrough(page, "body", "standalone"));
  report.hash = await page.evaluate(() => window.location.hash);
  report.pwned = await page.evaluate(() => window.__pwned ?? null);
  report.text = await page.evaluate(() => document.body.innerText);
  if (plan.select_line) {
    const line = plan.select_op ? `.pv-line[data-op="${plan.select_op}"]` : ".pv-line[data-op]";
    await page.locator(line).first().click();
    await page.waitForSelector(".pv-details .pv-lineage, .pv-details .pv-op-text");
    report.details = await page.locator(".pv-details").innerText();
    await shot(page, "standalone-selected");
  }
}

async function runCell(page, code) {
  // A new cell below the last one, typed and run as a person would.
  await page.locator(".jp-Notebook .jp-Cell").last().click();
  await page.keyboard.press("Escape");
  await page.keyboard.press("b");
  await page.keyboard.press("Enter");
  await page.keyboard.type(code);
  await page.keyboard.press("Control+Enter");
  await allRun(page);
  const outputs = page.locator(".jp-Notebook .jp-CodeCell").last().locator(".jp-OutputArea-output");
  return (await outputs.count()) > 0 ? outputs.last().innerText() : "";
}

// What the page shows when a step fails: which viewers drew what, the notebook's
// outputs (a traceback, say), any dialog, and the kernel's state.
async function diagnose(page) {
  return page.evaluate(() => {
    const text = (node) => (node.innerText ?? "").slice(0, 2000);
    const kernel = window.jupyterapp?.shell.currentWidget?.sessionContext?.session?.kernel;
    return {
      viewers: [...document.querySelectorAll(".pv-viewer")].map((v) => ({
        step: v.dataset.step, rendered: v.dataset.rendered, title: text(v.querySelector(".pv-title") ?? v),
      })),
      outputs: [...document.querySelectorAll(".jp-OutputArea-output")].map(text),
      errors: [...document.querySelectorAll(".pv-error, .jp-RenderedText[data-mime-type='application/vnd.jupyter.stderr']")].map(text),
      dialogs: [...document.querySelectorAll(".jp-Dialog")].map(text),
      prompts: [...document.querySelectorAll(".jp-InputPrompt")].map((p) => p.textContent),
      kernel: kernel ? { status: kernel.status, connection: kernel.connectionStatus } : null,
    };
  }).catch((error) => ({ unreadable: String(error) }));
}

async function lab(page) {
  await runAllCells(page, plan.url, TIMEOUT);
  await rendered(page, ".pv-mime", -1);
  await shot(page, "lab-notebook");
  // One viewer per trace output: the extension's; the iframe fallback is not shown.
  report.viewers = await page.locator(".jp-Notebook .pv-viewer").count();
  report.frames = await page.locator(".jp-Notebook iframe.passviz-frame").count();
  // The MIME renderer's viewer: what `display(trace)` shows.
  await page.locator(".pv-mime").first().scrollIntoViewIfNeeded();
  Object.assign(report, await stepThrough(page, ".pv-mime", "lab-mime"));
  // The widget: Python set step 6 in the notebook; now a new cell sets it again.
  const widget = ".pv-widget";
  await rendered(page, widget, 6);
  report.widget_output = await runCell(page, "w.step = 9");
  report.widget_after_python = (await drawn(await rendered(page, widget, 9))).step;
  await page.locator(`${widget} .pv-title`).first().scrollIntoViewIfNeeded();
  await page.locator(`${widget} .pv-title`).first().click();
  await page.keyboard.press("ArrowRight");
  await rendered(page, widget, 10);
  await page.locator(`${widget} .pv-line[data-op]`).nth(1).click();
  report.clicked_op = await page.locator(`${widget} .pv-line[data-op]`).nth(1).getAttribute("data-op");
  await shot(page, "lab-widget");
  report.python_reads = await runCell(page, "print(w.step, w.selected_op)");
  // A trace file from the file browser opens in the viewer.
  await page.locator(".jp-DirListing-itemText", { hasText: plan.trace_file }).first().dblclick();
  const doc = ".jp-MainAreaWidget:not(.jp-NotebookPanel)";
  const docViewer = await rendered(page, doc, -1);
  report.document = await drawn(docViewer);
  await page.locator(`${doc} .pv-title`).first().click();
  await page.keyboard.press("ArrowRight");
  report.document_next = (await drawn(await rendered(page, doc, 0))).step;
  await shot(page, "lab-document");
  if (plan.gzip_file) {
    // A gzip trace, as `passviz trace` writes by default, opens in the same viewer.
    await page.locator(".jp-DirListing-itemText", { hasText: plan.gzip_file }).first().dblclick();
    const gzip = ".jp-MainAreaWidget:not(.jp-NotebookPanel):not(.lm-mod-hidden)";
    report.gzip_document = await drawn(await rendered(page, gzip, -1));
    await shot(page, "lab-gzip-document");
  }
  if (plan.long_cell) await longTrace(page);
}

// A long real trace recorded in the notebook and displayed: its viewer, inspected at a few steps.
async function longTrace(page) {
  // Back to the notebook's tab (the trace document is in front).
  await page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", { hasText: ".ipynb" }).first().click();
  await page.waitForSelector(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook", { state: "visible" });
  const before = await page.evaluate(() => window.passvizViewers.length);
  await runCell(page, plan.long_cell);
  await page.waitForFunction((n) => window.passvizViewers.length > n, before, { timeout: KERNEL_TIMEOUT });
  report.long = {};
  for (const step of plan.long_steps) {
    await page.evaluate(async (s) => {
      const viewer = window.passvizViewers[window.passvizViewers.length - 1];
      viewer.node.scrollIntoView({ block: "center" });
      await viewer.goto(s);
      for (let i = 0; i < 50; i++) {
        const pending = viewer.rendered;
        await pending;
        if (pending === viewer.rendered) break;
      }
    }, step);
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    report.long[step] = await page.evaluate(() => window.passvizViewers[window.passvizViewers.length - 1].inspect());
    await shot(page, `lab-long-step${step}`);
  }
}

function watch(page) {
  page.on("pageerror", (error) => report.errors.push(String(error)));
  page.on("dialog", (dialog) => { report.dialogs.push(dialog.message()); return dialog.dismiss(); });
}

let page = null;
try {
  const context = await browser.newContext({ viewport: { width: 1500, height: 950 } });
  page = await context.newPage();
  watch(page);
  if (plan.mode === "lab") await lab(page); else await standalone(context, page);
} catch (error) {
  report.failure = String(error && error.stack || error);
  if (page) {
    report.diagnosis = await diagnose(page);
    await shot(page, `${plan.mode}-failure`).catch(() => undefined);
  }
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(report));
