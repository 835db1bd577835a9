// The few parts of the `vscode` module that activating Holon touches, for bench/activateProbe.cjs:
// registrations return disposables, events never fire, settings are their defaults. Anything else
// answers with a harmless stand-in, so the probe measures Holon's own work.
'use strict';

const disposable = () => ({ dispose() {} });
const handler = {
  get(_t, p) {
    if (p === 'then') return undefined;
    if (p === Symbol.toPrimitive) return () => '';
    if (p === 'dispose') return () => {};
    return anything();
  },
  apply: () => anything(),
  construct: () => anything(),
};
function anything() {
  return new Proxy(function () {}, handler);
}

class EventEmitter {
  constructor() {
    this.event = () => disposable();
  }
  fire() {}
  dispose() {}
}

class Disposable {
  constructor(fn) {
    this.dispose = fn ?? (() => {});
  }
  static from(...items) {
    return new Disposable(() => items.forEach((d) => d && d.dispose && d.dispose()));
  }
}

const uri = (fsPath) => ({ fsPath, path: fsPath, scheme: 'file', toString: () => `file://${fsPath}` });

module.exports = new Proxy(
  {
    EventEmitter,
    Disposable,
    Uri: { file: uri, joinPath: (base, ...parts) => uri([base.fsPath, ...parts].join('/')) },
    StatusBarAlignment: { Left: 1, Right: 2 },
    ViewColumn: { Active: -1 },
    ThemeColor: class {},
    McpStdioServerDefinition: class {},
    TabInputWebview: class {},
    window: new Proxy(
      {
        // No editor tabs open: the receipts step reads them at activation.
        tabGroups: { all: [], onDidChangeTabs: () => disposable() },
        createOutputChannel: () => ({ info() {}, warn() {}, error() {}, appendLine() {}, dispose() {} }),
        createStatusBarItem: () => ({ show() {}, hide() {}, dispose() {} }),
      },
      { get: (t, p) => (p in t ? t[p] : () => disposable()) },
    ),
    commands: { registerCommand: () => disposable(), executeCommand: async () => undefined },
    workspace: {
      getConfiguration: () => ({ get: (_k, d) => d, inspect: () => undefined, has: () => false }),
      onDidChangeConfiguration: () => disposable(),
    },
    lm: { registerMcpServerDefinitionProvider: () => disposable() },
  },
  { get: (t, p) => (p in t ? t[p] : anything()) },
);
