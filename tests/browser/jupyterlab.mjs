// Waiting on a JupyterLab notebook as the browser tests drive it: its kernel
// idle, its cells run. Shared by run_panel.mjs and viewer_e2e.mjs.

// How long a kernel may take to start and to run the cells asked for: starting a
// kernel and running the notebook is the slow part on a busy 2-core machine.
export const KERNEL_TIMEOUT = 180000;

// The notebook's kernel is connected and idle and no cell waits to run.
// (JupyterLab's own status indicator reads "idle" before a kernel is attached,
// and a cell run with no kernel yet opens the kernel picker instead.)
export async function idle(page) {
  await page.waitForFunction(() => {
    const panel = window.jupyterapp?.shell.currentWidget;
    const kernel = panel?.sessionContext?.session?.kernel;
    if (!kernel || kernel.status !== "idle" || kernel.connectionStatus !== "connected") return false;
    return ![...panel.node.querySelectorAll(".jp-InputPrompt")].some((p) => p.textContent.includes("*"));
  }, null, { timeout: KERNEL_TIMEOUT });
}

// Every code cell of the open notebook has run (its prompt holds a count).
export async function allRun(page) {
  await page.waitForFunction(() => {
    const panel = window.jupyterapp?.shell.currentWidget;
    const prompts = [...(panel?.node.querySelectorAll(".jp-CodeCell .jp-InputPrompt") ?? [])];
    return prompts.length > 0 && prompts.every((p) => /\[\d+\]/.test(p.textContent));
  }, null, { timeout: KERNEL_TIMEOUT });
  await idle(page);
}

// Open the notebook at `url`, wait for its kernel, and run all its cells from
// JupyterLab's Run menu; `timeout` bounds the wait for the notebook's panel.
export async function runAllCells(page, url, timeout) {
  await page.goto(url);
  await page.waitForSelector(".jp-NotebookPanel", { timeout });
  await idle(page);
  await page.locator(".lm-MenuBar-itemLabel", { hasText: /^Run$/ }).click();
  await page.locator(".lm-Menu-itemLabel", { hasText: /^Run All Cells$/ }).click();
  await allRun(page);
}
