// Test-only: parse Mermaid diagrams with Mermaid's own parser (mermaid.parse) under jsdom.
// stdin: a JSON array of diagram texts; stdout: a JSON array of {ok, type?, error?}.
// Run with NODE_PATH unset and the cwd or --prefix holding node_modules (see .ci/run).
import { JSDOM } from "jsdom";

const dom = new JSDOM("<!DOCTYPE html><body></body>", { pretendToBeVisual: true });
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import("mermaid");
mermaid.initialize({ startOnLoad: false, securityLevel: "strict" });

let input = "";
for await (const chunk of process.stdin) input += chunk;
const results = [];
for (const text of JSON.parse(input)) {
  try {
    const parsed = await mermaid.parse(text);
    results.push({ ok: true, type: parsed.diagramType });
  } catch (e) {
    results.push({ ok: false, error: String((e && e.message) || e) });
  }
}
process.stdout.write(JSON.stringify(results) + "\n");
