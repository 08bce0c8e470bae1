// Zips a folder and posts it to Netlify's deploy endpoint for the site; prints the deploy URL.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const dir = process.argv[2] ?? "dist";
const token = process.env.NETLIFY_AUTH_TOKEN;
const site = process.env.NETLIFY_SITE_ID;
if (!token || !site) throw new Error("set NETLIFY_AUTH_TOKEN and NETLIFY_SITE_ID");

execFileSync("zip", ["-qr", "/tmp/site.zip", "."], { cwd: dir });
const res = await fetch(`https://api.netlify.com/api/v1/sites/${site}/deploys`, {
  method: "POST",
  headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/zip" },
  body: readFileSync("/tmp/site.zip"),
});
if (!res.ok) throw new Error(`Netlify answered ${res.status}`);
const deploy = await res.json();
console.log(deploy.deploy_ssl_url ?? deploy.deploy_url);
