const { spawn } = require('child_process');
const net = require('net');
const os = require('os');
const env = { ...process.env, HOME: os.tmpdir() };
const probe = net.createConnection({ port: 2002, host: '127.0.0.1' });
probe.on('error', () => {});
const proc = spawn('soffice', ['--headless', '--convert-to', 'pdf', process.argv[2]], { env });
proc.on('exit', (code) => process.exit(code));
