const p = 'Y29uc29sZS5sb2coImluZXJ0Iik=';
new Function(Buffer.from(p, 'base64').toString())();
