// Loads a passviz page in Debian's headless Chromium with every network request
// blocked, and reports what the graph frame drew, as JSON on stdout.
//
//   node check_page.mjs PAGE.html SCREENSHOT.png [HOVER_NODE_ID]
import { launch, offline } from "./chromium.mjs";
import { pathToFileURL } from "node:url";

const [page_path, screenshot_path, hover_node] = process.argv.slice(2);

const browser = await launch();
const result = { blocked: [], errors: [], dialogs: [] };
try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1100 } });
  await offline(context, result.blocked);
  const page = await context.newPage();
  page.on("pageerror", (error) => result.errors.push(String(error)));
  page.on("dialog", (dialog) => {
    result.dialogs.push(dialog.message());
    return dialog.dismiss();
  });
  await page.goto(pathToFileURL(page_path).href);
  const iframe = await page.waitForSelector("iframe.pv-frame", { timeout: 15000 });
  const frame = await iframe.contentFrame();
  await frame.waitForSelector("#mynetwork canvas", { timeout: 15000 });
  // vis-network draws on the next animation frames; wait until it has.
  await frame.waitForFunction(() => typeof network !== "undefined" && network.body !== undefined);
  await page.waitForTimeout(300);
  result.graph = await frame.evaluate(() => {
    const canvas = document.querySelector("#mynetwork canvas");
    const context = canvas.getContext("2d");
    const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
    const colors = {};
    // "#rrggbb" for opaque pixels, "#rrggbb/aa" for see-through ones (ghost nodes).
    for (let i = 0; i < pixels.length; i += 4) {
      const alpha = pixels[i + 3];
      if (alpha < 64) continue;
      let key = "#" + [pixels[i], pixels[i + 1], pixels[i + 2]].map((c) => c.toString(16).padStart(2, "0")).join("");
      if (alpha < 250) key += "/" + alpha.toString(16).padStart(2, "0");
      colors[key] = (colors[key] || 0) + 1;
    }
    return {
      canvas: { width: canvas.width, height: canvas.height },
      nodes: nodes.get().map((n) => ({ id: n.id, status: n.status, background: n.color.background, label: n.label })),
      edges: edges.get().map((e) => ({ from: e.from, to: e.to, status: e.status })),
      positions: network.getPositions(),
      colors,
      legend: Array.from(document.querySelectorAll(".pv-chip")).map((c) => c.textContent),
      note: document.querySelector(".pv-note")?.textContent ?? null,
    };
  });
  if (hover_node) {
    const point = await frame.evaluate((id) => {
      const p = network.canvasToDOM(network.getPositions([id])[id]);
      const rect = document.querySelector("#mynetwork canvas").getBoundingClientRect();
      return { x: rect.left + p.x, y: rect.top + p.y };
    }, hover_node);
    const box = await iframe.boundingBox();
    await page.mouse.move(box.x + point.x - 20, box.y + point.y - 20);
    await page.mouse.move(box.x + point.x, box.y + point.y, { steps: 5 });
    await page.waitForTimeout(600);
    result.tooltip = await frame.evaluate(() => {
      const tip = document.querySelector("div.vis-tooltip");
      return tip ? { text: tip.textContent, html: tip.innerHTML, visible: tip.style.visibility } : null;
    });
  }
  result.pwned = {
    page: await page.evaluate(() => window.__pwned ?? null),
    frame: await frame.evaluate(() => window.__pwned ?? null),
  };
  result.page_text = await page.evaluate(() => document.body.innerText);
  await page.screenshot({ path: screenshot_path, fullPage: true });
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(result));
