import puppeteer from "puppeteer";
import { mkdirSync, writeFileSync } from "node:fs";

const browser = await puppeteer.launch({ headless: false });
const page = await browser.newPage();
await page.goto("https://dashboard.example.com/login");
await page.waitForSelector("#charts", { timeout: 300_000 }); // the user signs in by hand
mkdirSync(".auth", { recursive: true });
writeFileSync(".auth/cookies.json", JSON.stringify(await page.cookies(), null, 2), { mode: 0o600 });
await browser.close();
