import puppeteer from "puppeteer";
import { readFileSync } from "node:fs";

const browser = await puppeteer.launch();
const page = await browser.newPage();
await page.setCookie(...JSON.parse(readFileSync(".auth/cookies.json", "utf8")));
await page.goto("https://dashboard.example.com/charts", { waitUntil: "networkidle0" });
await page.screenshot({ path: `shots/${new Date().toISOString().slice(0, 10)}.png`, fullPage: true });
await browser.close();
