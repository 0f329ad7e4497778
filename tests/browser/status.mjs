// Loads a running switchyard's /status page in headless Chromium and checks
// that it renders, that its charts and tables update as requests flow, that
// it loads nothing from outside the server, and that no key shows.
//
//   node status.mjs <base url> <api key> <the key's account id>
//
// CHROMIUM names the browser (default /usr/bin/chromium); STATUS_SCREENSHOT
// a PNG to save the page to. Run by tests/status_page.rs.
import puppeteer from "puppeteer-core";

const [base, key, account] = process.argv.slice(2);
const shot = process.env.STATUS_SCREENSHOT;
if (!base || !key || !account) {
  console.error("usage: node status.mjs <base url> <api key> <account id>");
  process.exit(2);
}
let passed = 0;
let failed = 0;
function check(name, ok, detail) {
  if (ok) {
    passed += 1;
    console.log(`ok   ${name}`);
  } else {
    failed += 1;
    console.log(`FAIL ${name}${detail === undefined ? "" : `: ${detail}`}`);
  }
}

const quote =
  "/api/v1/shortcuts/quote?chainId=1&fromAddress=0xd8da6bf26964af9d7eed9e03e53415d37aa96045" +
  "&tokenIn=0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48&amountIn=5000000000" +
  "&tokenOut=0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2";
async function call(path, n) {
  const statuses = [];
  for (let i = 0; i < n; i += 1) {
    const r = await fetch(base + path, { headers: { authorization: `Bearer ${key}` } });
    await r.arrayBuffer();
    statuses.push(r.status);
  }
  return statuses;
}

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
  ],
});
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 1100 });
  const foreign = [];
  const pageErrors = [];
  page.on("request", (r) => {
    if (!r.url().startsWith(base)) foreign.push(r.url());
  });
  page.on("pageerror", (e) => pageErrors.push(String(e)));

  await page.goto(`${base}/status`, { waitUntil: "load" });
  await page.waitForFunction(() => Number(document.body.dataset.updates) >= 1, { timeout: 15000 });
  check("the page polled /status.json and rendered", true);
  const chains = await page.$$eval("#chains tbody tr", (rows) => rows.map((r) => r.dataset.chain));
  check("every chain has a row", chains.includes("1") && chains.length >= 2, JSON.stringify(chains));
  const ethereum = await page.$eval('#chains tr[data-chain="1"]', (r) => r.textContent);
  check("a chain row shows its sources' state", /: (ready|ended|delayed)/.test(ethereum), ethereum);

  // Requests flow: quotes and routes, one unknown token (an error by code).
  const first = await call(quote, 6);
  const route = await call(quote.replace("/quote?", "/route?"), 3);
  const bad = await call(quote.replace("0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2", "0x00000000000000000000000000000000000000aa"), 1);
  check("the quotes were answered", first.every((s) => s === 200) && route.every((s) => s === 200), JSON.stringify([first, route]));
  check("the unknown token was refused", bad[0] === 404, JSON.stringify(bad));

  await page.waitForFunction(
    () => {
      const row = document.querySelector('#endpoints tr[data-route="/api/v1/shortcuts/quote"]');
      return row && Number(row.querySelector(".requests").textContent.replace(/[^0-9]/g, "")) >= 7;
    },
    { timeout: 15000 },
  );
  check("the endpoint table counts the quotes", true);
  const chart = await page.$eval("#chart-quote", (svg) => ({
    points: Number(svg.dataset.points),
    p50: svg.querySelector("path.p50").getAttribute("d"),
    p99: svg.querySelector("path.p99").getAttribute("d"),
  }));
  check("the quote latency chart draws p50 and p99", chart.points >= 2 && chart.p50.startsWith("M") && chart.p99.startsWith("M"), JSON.stringify(chart));
  const routeChart = await page.$eval("#chart-route", (svg) => Number(svg.dataset.points));
  check("the route latency chart draws", routeChart >= 2, String(routeChart));
  const spark = await page.$eval('#endpoints tr[data-route="/api/v1/shortcuts/quote"] svg.rps path.line', (p) => p.getAttribute("d"));
  check("the endpoint's requests-per-second chart draws", /^M[0-9.]+ [0-9.]+/.test(spark), spark);
  const box = await page.$eval("#chart-quote", (svg) => {
    const r = svg.getBoundingClientRect();
    return [r.width, r.height];
  });
  check("the charts have a size on screen", box[0] > 100 && box[1] > 100, JSON.stringify(box));
  await page.waitForSelector('#codes tr[data-code="NOT_FOUND"]', { timeout: 15000 });
  check("errors are counted by code", true);
  const lastError = await page.$eval("#errors tbody tr", (r) => r.textContent);
  check("the last error is listed", lastError.includes("NOT_FOUND") && lastError.includes("/api/v1/shortcuts/quote"), lastError);

  // Requests in a later 5-second slot: the charts draw lines between
  // slots.
  const slots = await page.evaluate(() => fetch("status.json").then((r) => r.json()).then((s) => s.window.slotStarts.length));
  await page.waitForFunction(
    (n) => fetch("status.json").then((r) => r.json()).then((s) => s.window.slotStarts.length > n),
    { timeout: 15000, polling: 500 },
    slots,
  );
  await call(quote, 3);
  await page.waitForFunction(() => /L/.test(document.querySelector("#chart-quote path.p50").getAttribute("d")), { timeout: 15000 });
  const line = await page.$eval("#chart-quote path.p99", (p) => p.getBBox().width);
  check("the latency chart joins the slots with a line", line > 1, String(line));

  // More requests: the page updates without a reload.
  const before = await page.$eval('#endpoints tr[data-route="/api/v1/shortcuts/quote"] .requests', (c) => Number(c.textContent.replace(/[^0-9]/g, "")));
  const updatesBefore = await page.evaluate(() => Number(document.body.dataset.updates));
  await call(quote, 5);
  await page.waitForFunction(
    (n) => Number(document.querySelector('#endpoints tr[data-route="/api/v1/shortcuts/quote"] .requests').textContent.replace(/[^0-9]/g, "")) >= n + 5,
    { timeout: 15000 },
    before,
  );
  const updatesAfter = await page.evaluate(() => Number(document.body.dataset.updates));
  check("the page updates live as requests flow", updatesAfter > updatesBefore, `${updatesBefore} → ${updatesAfter}`);

  const html = await page.content();
  check("no key shows on the page", !html.includes(key) && !html.includes(key.slice(0, 12)));
  check("no account id shows on the page", !html.includes(account));
  check("nothing is loaded from outside the server (no CDN)", foreign.length === 0, JSON.stringify(foreign));
  check("the page's script raised no error", pageErrors.length === 0, JSON.stringify(pageErrors));
  if (shot) await page.screenshot({ path: shot, fullPage: true });
} catch (e) {
  check("the page could be driven", false, String(e && e.stack ? e.stack : e));
} finally {
  await browser.close();
}
console.log(`status page: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
