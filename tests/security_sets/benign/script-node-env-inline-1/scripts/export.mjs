import { spawn } from "node:child_process";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const PORT = 2002;

function listenerUp(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port }, () => { socket.end(); resolve(true); });
    socket.on("error", () => resolve(false));
  });
}

async function main() {
  const input = process.argv[2];
  const profile = path.join(os.tmpdir(), "lo-profile");
  if (await listenerUp(PORT)) {
    console.log("reusing the running LibreOffice listener");
  }
  const child = spawn("soffice", ["--headless", `-env:UserInstallation=file://${profile}`,
    "--convert-to", "pdf", "--outdir", path.dirname(input), input], {
    env: { ...process.env, SAL_USE_VCLPLUGIN: "svp", HOME: profile },
    stdio: "inherit",
  });
  child.on("exit", (code) => process.exit(code ?? 1));
}

main();
