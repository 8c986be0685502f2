// Drives the test host page in headless Chromium with playwright-core and
// prints one JSON object: the host's event log, the view's text, the
// browser console, and the error that stopped the run, if any.
// Usage: node runner.cjs CONFIG_JSON  (MCPGEN_NODE_MODULES locates playwright-core)
const path = require("path");
const { chromium } = require(path.join(process.env.MCPGEN_NODE_MODULES, "playwright-core"));

async function main() {
  const cfg = JSON.parse(process.argv[2]);
  const out = { events: [], text: "", theme: "", themeVars: "", console: [], error: "" };
  const browser = await chromium.launch({ executablePath: cfg.chromium, args: cfg.flags, headless: true });
  try {
    const page = await browser.newPage({ viewport: { width: 640, height: 900 }, deviceScaleFactor: 1 });
    page.on("console", (m) => out.console.push(`${m.type()}: ${m.text()}`));
    page.on("pageerror", (e) => out.console.push(`pageerror: ${e.message}`));
    const timeout = cfg.timeoutMs || 15000;
    try {
      await page.goto(cfg.url);
      const frame = page.frameLocator("iframe");
      for (const step of cfg.steps || []) {
        if (step.click) {
          await frame.getByRole("button", { name: step.click }).click({ timeout });
        }
        if (step.theme) {
          await page.evaluate((t) => window.__mcpgenHostActions.theme(t), step.theme);
        }
        if (step.teardown) {
          await page.evaluate(() => window.__mcpgenHostActions.teardown());
        }
        if (step.waitText) {
          await frame.locator("body").getByText(step.waitText).first().waitFor({ timeout });
        }
        if (step.waitEvent) {
          await page.waitForFunction(
            ([kind, n]) => window.__mcpgenHost.events.filter((e) => e.kind === kind).length >= n,
            [step.waitEvent, step.count || 1],
            { timeout },
          );
        }
        if (step.screenshot) {
          await page.waitForTimeout(100); // let the last resize settle
          await page.locator("iframe").screenshot({ path: step.screenshot, animations: "disabled" });
        }
      }
    } catch (e) {
      out.error = String(e && e.stack ? e.stack : e);
    }
    try {
      const host = await page.evaluate(() => window.__mcpgenHost || { events: [], error: "host page did not start" });
      out.events = host.events;
      if (host.error && !out.error) out.error = "host: " + host.error;
      const html = page.frameLocator("iframe").locator("html");
      out.text = await page.frameLocator("iframe").locator("body").innerText({ timeout: 2000 });
      out.theme = (await html.getAttribute("data-theme", { timeout: 2000 })) || "";
      out.themeVars = await html.evaluate((el) => el.style.getPropertyValue("--color-background-primary"));
    } catch (e) {
      if (!out.error) out.error = String(e);
    }
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((e) => {
  process.stdout.write(JSON.stringify({ events: [], text: "", console: [], error: String(e && e.stack ? e.stack : e) }));
});
