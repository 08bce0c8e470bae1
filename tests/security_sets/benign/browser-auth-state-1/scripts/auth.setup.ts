import { test as setup, expect } from "@playwright/test";

const authFile = "playwright/.auth/user.json";

setup("authenticate", async ({ page }) => {
  await page.goto("/login");
  await page.getByLabel("Email").fill(process.env.E2E_USER!);
  await page.getByLabel("Password").fill(process.env.E2E_PASSWORD!);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL("/dashboard");
  // The app keeps its access token in localStorage; make sure it is there before saving the state.
  const token = await page.evaluate(() => window.localStorage.getItem("access_token"));
  expect(token).toBeTruthy();
  const cookies = await page.context().cookies();
  expect(cookies.some((c) => c.name === "session")).toBe(true);
  await page.context().storageState({ path: authFile });
});
