// The ShapeScript extension: starts `shapescript lsp` from the project's environment and
// connects VS Code to it. Plain JavaScript, so there is nothing to build.
"use strict";

const fs = require("fs");
const path = require("path");
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

// The server's command: the setting, else the workspace's .venv, else the PATH.
function serverCommand() {
  const configured = vscode.workspace.getConfiguration("shapescript").get("server.command");
  if (Array.isArray(configured) && configured.length > 0) {
    return { command: configured[0], args: configured.slice(1) };
  }
  const exe = process.platform === "win32" ? "shapescript.exe" : "shapescript";
  const bin = process.platform === "win32" ? "Scripts" : "bin";
  for (const folder of vscode.workspace.workspaceFolders || []) {
    for (const venv of [".venv", "venv"]) {
      const candidate = path.join(folder.uri.fsPath, venv, bin, exe);
      if (fs.existsSync(candidate)) {
        return { command: candidate, args: ["lsp"] };
      }
    }
  }
  return { command: "shapescript", args: ["lsp"] };
}

function activate(context) {
  const { command, args } = serverCommand();
  const serverOptions = {
    run: { command, args, transport: TransportKind.stdio },
    debug: { command, args, transport: TransportKind.stdio },
  };
  const clientOptions = {
    documentSelector: [{ scheme: "file", language: "shapescript" }],
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/*.ss") },
    middleware: {
      // The shapes after assignments can be turned off (shapescript.inlayHints.shapes).
      provideInlayHints: (document, range, token, next) =>
        vscode.workspace.getConfiguration("shapescript").get("inlayHints.shapes", true)
          ? next(document, range, token) : [],
    },
  };
  client = new LanguageClient("shapescript", "ShapeScript", serverOptions, clientOptions);
  context.subscriptions.push({ dispose: () => client && client.stop() });
  client.start().catch((err) => {
    vscode.window.showErrorMessage(
      `ShapeScript: couldn't start \`${command} ${args.join(" ")}\` (${err.message}). ` +
      "Install it with pip install 'shapescript[lsp]', or set shapescript.server.command.");
  });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
