#!/usr/bin/env bash
# Packages the extension as editors/vscode/shapescript.vsix (install it with
# `code --install-extension shapescript.vsix`). Needs node and npm.
set -euo pipefail
cd "$(dirname "$0")/.."
npm install --no-audit --no-fund
# The language client ships inside the .vsix; the test runner doesn't.
rm -rf node_modules
npm install --omit=dev --no-audit --no-fund
npx --yes @vscode/vsce@3 package --allow-missing-repository --skip-license -o shapescript.vsix
npm install --no-audit --no-fund  # the dev tools again, for the grammar tests
echo "wrote $(pwd)/shapescript.vsix"
