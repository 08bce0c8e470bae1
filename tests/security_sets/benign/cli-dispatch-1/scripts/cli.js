#!/usr/bin/env node
// Tiny command dispatcher: each command lives in commands/<name>.js.
const path = require("path");
const fs = require("fs");
const [cmd = "help", ...args] = process.argv.slice(2);
const file = path.join(__dirname, "commands", `${cmd}.js`);
if (!fs.existsSync(file)) {
  console.error(`unknown command: ${cmd}`);
  process.exit(2);
}
require(file)(args);
