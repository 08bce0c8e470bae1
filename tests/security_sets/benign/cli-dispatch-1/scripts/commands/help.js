module.exports = () => console.log("commands: help, version");
