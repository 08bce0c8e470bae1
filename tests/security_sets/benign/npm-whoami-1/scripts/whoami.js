// Which npm user does the token in ~/.npmrc belong to? (asks the registry that issued it)
const fs = require("fs");
const os = require("os");
const path = require("path");
const rc = fs.readFileSync(path.join(os.homedir(), ".npmrc"), "utf8");
const token = (rc.match(/\/\/registry\.npmjs\.org\/:_authToken=(\S+)/) || [])[1];
if (!token) { console.error("no registry.npmjs.org token in ~/.npmrc"); process.exit(1); }
fetch("https://registry.npmjs.org/-/whoami", { headers: { Authorization: `Bearer ${token}` } })
  .then((r) => r.json()).then((j) => console.log(j.username));
