// Opens a notebook exported to static HTML (file://, every other request
// blocked), finds the passviz viewer in its sandboxed frame, presses → in it
// and reports the step before and after as JSON.
//
//   node frame_step.mjs PAGE.html SCREENSHOT.png
import { launch } from "./chromium.mjs";

const [page_path, shot] = process.argv.slice(2);
const report = { errors: [], blocked: [], template: [], frames: 0 };
const browser = await launch();
try {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("file:") || url.startsWith("data:") || url.startsWith("about:")) return route.continue();
    // nbconvert's own template asks for require.js and MathJax from CDNs; what counts
    // here is that nothing in the viewer's frame asks for anything.
    const inFrame = route.request().frame()?.url().startsWith("about:srcdoc") ?? false;
    (inFrame ? report.blocked : report.template).push(url);
    return route.abort();
  });
  const page = await context.newPage();
  page.on("pageerror", (error) => report.errors.push(String(error)));
  await page.goto("file://" + page_path);
  const frames = page.locator("iframe.passviz-frame");
  report.frames = await frames.count();
  const handle = await frames.first().elementHandle();
  await handle.scrollIntoViewIfNeeded();
  const frame = await handle.contentFrame();
  await frame.waitForFunction(() => (window.passvizViewers ?? []).length === 1, null, { timeout: 60000 });
  const step = () => frame.evaluate(async () => {
    const viewer = window.passvizViewers[0];
    await viewer.rendered;
    return viewer.step;
  });
  report.before = await step();
  await frame.locator(".pv-graph").first().click();
  await page.keyboard.press("ArrowRight");
  report.after = await step();
  report.sandbox = await handle.getAttribute("sandbox");
  await page.screenshot({ path: shot });
} catch (error) {
  report.errors.push(String(error && error.stack ? error.stack : error));
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(report));
