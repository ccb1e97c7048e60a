// test/viewer/first_view.js: the time of the viewer's first view of a table, from the start
// of the navigation to the list of its collections rendered (the page's performance mark
// "collections-ready"), in headless Chromium, already signed in (the key in session storage,
// as after a sign-in). Used by test/bench/viewer.sh; prints one line per run and the median.
//   VIEWER_URL=http://127.0.0.1:PORT CHROMIUM=/usr/bin/chromium node first_view.js TABLE KEY SECRET [RUNS]
"use strict";
const puppeteer = require("puppeteer-core");

(async () => {
  const [table, key, secret, runsArg] = process.argv.slice(2);
  const runs = Number(runsArg || 5);
  const browser = await puppeteer.launch({ executablePath: process.env.CHROMIUM, headless: true,
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run"] });
  const times = [];
  try {
    for (let i = 0; i <= runs; i++) {
      const page = await browser.newPage();
      await page.evaluateOnNewDocument((c) => sessionStorage.setItem("singletable-viewer", c),
        JSON.stringify({ accessKeyId: key, secretAccessKey: secret, region: "us-east-1" }));
      await page.setCacheEnabled(i > 0);
      await page.goto(`${process.env.VIEWER_URL}/viewer/#table=${encodeURIComponent(table)}`, { waitUntil: "domcontentloaded" });
      await page.waitForSelector("#partitions[data-ready]", { timeout: 30000 });
      const ms = await page.evaluate(() => performance.getEntriesByName("collections-ready")[0].startTime);
      const n = await page.$$eval("#partitions li.partition", (els) => els.length);
      console.log(`${i === 0 ? "warm-up" : `run ${i}`}: ${ms.toFixed(0)} ms to the collections list (${n} collections shown)`);
      if (i > 0) times.push(ms);
      await page.close();
    }
  } finally {
    await browser.close();
  }
  times.sort((a, b) => a - b);
  console.log(`median ${times[Math.floor(times.length / 2)].toFixed(0)} ms, min ${times[0].toFixed(0)}, max ${times[times.length - 1].toFixed(0)} (${runs} runs)`);
})().catch((e) => { console.error(e); process.exit(1); });
