// Log in to staging with the test account and screenshot the main pages.
import { chromium } from "playwright";
import { mkdir } from "node:fs/promises";

const base = process.env.STAGING_URL;
const user = process.env.E2E_USER;
const password = process.env.E2E_PASSWORD;
if (!base || !user || !password) {
  console.error("Set STAGING_URL, E2E_USER and E2E_PASSWORD.");
  process.exit(2);
}

const pages = ["/dashboard", "/projects", "/settings/profile", "/billing"];
await mkdir("smoke", { recursive: true });
const browser = await chromium.launch();
const page = await browser.newPage();
let failed = 0;
try {
  await page.goto(new URL("/login", base).href);
  await page.getByLabel("Email").fill(user);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/dashboard/);
  for (const path of pages) {
    const response = await page.goto(new URL(path, base).href);
    const banner = await page.locator("[role=alert].error").count();
    if (!response?.ok() || banner) {
      console.error(`FAIL ${path}: status ${response?.status()}, error banners ${banner}`);
      failed += 1;
    }
    await page.screenshot({ path: `smoke/${path.replaceAll("/", "_") || "root"}.png`, fullPage: true });
  }
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
