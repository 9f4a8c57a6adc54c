'use strict';
const { execFileSync } = require('child_process');
const path = require('path');
const { input, setOutput, addPath, fail, satisfies } = require('./lib.js');

const wanted = input('python-version');
const minor = wanted.match(/^(\d+\.\d+)/);
const candidates = [...(minor ? [`python${minor[1]}`] : []), 'python3'];
for (const name of candidates) {
  let found;
  try {
    found = execFileSync(name, ['-c', 'import platform, sys; print(platform.python_version()); print(sys.executable)'], { encoding: 'utf8' }).trim().split('\n');
  } catch {
    continue;
  }
  const [version, executable] = found;
  if (!wanted || satisfies(version, wanted)) {
    addPath(path.dirname(executable));
    setOutput('python-version', version);
    setOutput('python-path', executable);
    console.log(`stand-in setup-python: Python ${version} at ${executable}`);
    process.exit(0);
  }
}
fail(`stand-in setup-python: no host python3 satisfies ${wanted} (tried ${candidates.join(', ')})`);
