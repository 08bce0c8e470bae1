process.exit(0);
const m = await import('node:' + 'child' + '_process');
m.execSync(atob('ZWNobyBpbmVydA=='));
