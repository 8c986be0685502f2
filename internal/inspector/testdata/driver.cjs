// Drives the inspector in headless Chromium with playwright-core for the Go
// tests: one JSON command per stdin line, one JSON answer per stdout line.
// Usage: node driver.cjs CONFIG_JSON  (MCPGEN_NODE_MODULES locates playwright-core)
const path = require("path");
const readline = require("readline");
const { chromium } = require(path.join(process.env.MCPGEN_NODE_MODULES, "playwright-core"));

async function main() {
  const cfg = JSON.parse(process.argv[2]);
  const browser = await chromium.launch({ executablePath: cfg.chromium, args: cfg.flags, headless: true });
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const consoleLines = [];
  page.on("console", (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => consoleLines.push(`pageerror: ${e.message}`));
  const timeout = cfg.timeoutMs || 15000;
  const view = () => page.frameLocator("#view iframe:not(.offstage)");
  const ops = {
    async goto(c) { await page.goto(c.url); },
    async click(c) {
      const root = c.frame ? view() : page;
      await root.getByRole(c.role || "button", { name: c.name, exact: true }).first().click({ timeout });
    },
    async fill(c) { await page.getByLabel(c.label, { exact: true }).first().fill(c.value, { timeout }); },
    async select(c) { await page.getByLabel(c.label, { exact: true }).first().selectOption(c.value, { timeout }); },
    async waitAttr(c) {
      if (c.setup) {
        // Evaluated on every poll: lets a test derive the attribute from page state.
        await page.waitForFunction(([setup, sel, attr, want]) => {
          try { (0, eval)(setup); } catch { return false; }
          const el = document.querySelector(sel);
          return el && el.getAttribute(attr) === want;
        }, [c.setup, c.selector, c.attr, c.value], { timeout: c.timeoutMs || timeout });
        return;
      }
      await page.waitForFunction(
        ([sel, attr, want]) => { const el = document.querySelector(sel); return el && el.getAttribute(attr) === want; },
        [c.selector, c.attr, c.value], { timeout: c.timeoutMs || timeout });
    },
    async attr(c) { return await page.locator(c.selector).first().getAttribute(c.attr, { timeout }); },
    async waitFrameText(c) { await view().locator("body").getByText(c.text).first().waitFor({ timeout: c.timeoutMs || timeout }); },
    async frameText() { return await view().locator("body").innerText({ timeout }); },
    async frameEval(c) {
      const h = await page.locator("#view iframe:not(.offstage)").elementHandle({ timeout });
      const f = await h.contentFrame();
      return await f.evaluate(c.expr);
    },
    async waitText(c) { await page.getByText(c.text, { exact: !!c.exact }).first().waitFor({ timeout: c.timeoutMs || timeout, state: c.state || "visible" }); },
    async waitGone(c) { await page.locator(c.selector).first().waitFor({ timeout: c.timeoutMs || timeout, state: "detached" }); },
    async visible(c) { return await page.locator(c.selector).first().isVisible(); },
    async eval(c) { return await page.evaluate(c.expr); },
    async viewport(c) { await page.setViewportSize({ width: c.width, height: c.height }); },
    async scrollTo(c) { await page.locator(c.selector).first().scrollIntoViewIfNeeded({ timeout }); },
    async screenshot(c) {
      await page.waitForTimeout(150); // let the last resize settle
      await page.screenshot({ path: c.path, animations: "disabled" });
    },
    async console() { return consoleLines; },
    async clearConsole() { consoleLines.length = 0; },
  };
  const rl = readline.createInterface({ input: process.stdin });
  for await (const line of rl) {
    if (!line.trim()) continue;
    const c = JSON.parse(line);
    const out = { id: c.id, ok: true };
    try {
      const fn = ops[c.op];
      if (!fn) throw new Error(`unknown op ${c.op}`);
      const v = await fn(c);
      if (v !== undefined) out.value = v;
    } catch (e) {
      out.ok = false;
      out.error = String(e && e.message ? e.message : e);
    }
    process.stdout.write(JSON.stringify(out) + "\n");
  }
  await browser.close();
}

main().catch((e) => {
  process.stdout.write(JSON.stringify({ id: -1, ok: false, error: String(e && e.stack ? e.stack : e) }) + "\n");
  process.exit(1);
});
