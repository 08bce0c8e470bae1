import { Client } from "ssh2";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";

const [host, unit] = process.argv.slice(2);
if (!/^[\w.-]+$/.test(unit)) throw new Error("bad unit name");
const conn = new Client();
conn.on("ready", () => {
  conn.exec(`sudo systemctl restart ${unit} && systemctl is-active ${unit}`, (err, stream) => {
    if (err) throw err;
    stream.on("data", (d) => process.stdout.write(d)).on("close", () => conn.end());
  });
}).connect({
  host, username: "ops",
  privateKey: readFileSync(process.env.SSH_KEY_PATH ?? `${homedir()}/.ssh/id_ed25519`),
});
