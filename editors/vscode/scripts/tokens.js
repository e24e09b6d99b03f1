#!/usr/bin/env node
// The grammar's tokens of some ShapeScript texts, as VS Code's own engine (vscode-textmate
// over Oniguruma) makes them, for the test that compares them with the Pygments lexer's.
// Reads a JSON list of texts on stdin; writes, for each text, a list of
// [line, start, end, scopes] (0-based line, columns in UTF-16 units, innermost scope last).
"use strict";

const fs = require("fs");
const path = require("path");
const vsctm = require("vscode-textmate");
const oniguruma = require("vscode-oniguruma");

const GRAMMAR = path.join(__dirname, "..", "syntaxes", "shapescript.tmLanguage.json");

async function main() {
  const wasm = fs.readFileSync(path.join(path.dirname(require.resolve("vscode-oniguruma")), "onig.wasm"));
  await oniguruma.loadWASM(wasm.buffer);
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scope) =>
      scope === "source.shapescript"
        ? vsctm.parseRawGrammar(fs.readFileSync(GRAMMAR, "utf8"), GRAMMAR)
        : null,
  });
  const grammar = await registry.loadGrammar("source.shapescript");
  const texts = JSON.parse(fs.readFileSync(0, "utf8"));
  const out = texts.map((text) => {
    let stack = vsctm.INITIAL;
    const tokens = [];
    text.split("\n").forEach((line, n) => {
      const r = grammar.tokenizeLine(line, stack);
      for (const t of r.tokens) {
        tokens.push([n, t.startIndex, Math.min(t.endIndex, line.length), t.scopes]);
      }
      stack = r.ruleStack;
    });
    return tokens;
  });
  process.stdout.write(JSON.stringify(out));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
