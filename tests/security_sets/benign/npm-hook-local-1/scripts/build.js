require('fs').mkdirSync('dist', { recursive: true });
