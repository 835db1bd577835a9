import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

/** Where webviews may load from: the built scripts and the media folder, nothing else. */
export function webviewRoots(extensionUri: vscode.Uri): vscode.Uri[] {
  return [vscode.Uri.joinPath(extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(extensionUri, 'media')];
}

/**
 * The HTML shell of a webview: a strict CSP (no inline script but the nonce'd bundle, styles only from
 * the extension and the elements' constructed style sheets), the shared stylesheet, and one root.
 */
export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, entry: string, title: string): string {
  const nonce = randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', `${entry}.js`));
  const css = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'holon.css'));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${css.toString()}">
<title>${title}</title>
</head>
<body>
<div id="root"></div>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}
