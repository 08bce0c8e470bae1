const { spawn } = require('child_process');
const net = require('net');
const os = require('os');
const env = { ...process.env, HOME: os.tmpdir(), SAL_USE_VCLPLUGIN: 'svp' };
function listening(port) {
  return new Promise((resolve) => {
    const sock = net.connect({ port, host: '127.0.0.1' }, () => { sock.end(); resolve(true); });
    sock.on('error', () => resolve(false));
  });
}
async function main() {
  if (!(await listening(2002))) {
    spawn('soffice', ['--headless', '--accept=socket,host=127.0.0.1,port=2002;urp;'], { env, stdio: 'inherit' });
  }
  spawn('soffice', ['--headless', '--convert-to', 'pdf', process.argv[2]], { env, stdio: 'inherit' });
}
main();
