// Shared helpers of the stand-in actions (inputs, outputs, PATH, failing with a message).
'use strict';
const fs = require('fs');

function input(name, { required = false } = {}) {
  const value = (process.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] || '').trim();
  if (required && !value) fail(`input required and not supplied: ${name}`);
  return value;
}

function lines(name) {
  return input(name).split('\n').map((l) => l.trim()).filter((l) => l);
}

function setOutput(name, value) {
  fs.appendFileSync(process.env.GITHUB_OUTPUT, `${name}=${value}\n`);
}

function addPath(dir) {
  fs.appendFileSync(process.env.GITHUB_PATH, `${dir}\n`);
}

function fail(message) {
  console.log(`::error::${message}`);
  process.exit(1);
}

// "20", "20.x", "20.11", ">=18" (minimum major) against a full version "20.11.1".
function satisfies(version, wanted) {
  const w = wanted.replace(/^v/, '').replace(/\.x$/, '');
  const minimum = w.match(/^>=\s*(\d+)$/);
  if (minimum) return Number(version.split('.')[0]) >= Number(minimum[1]);
  return version === w || version.startsWith(`${w}.`);
}

module.exports = { input, lines, setOutput, addPath, fail, satisfies };
