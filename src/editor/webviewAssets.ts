import * as vscode from 'vscode';
import type { WebviewAssets } from './webviewHost.ts';

/** The webviews' files in the extension's folder: the built scripts and the media folder, nothing else. */
export function webviewAssets(extensionUri: vscode.Uri): WebviewAssets {
  const scripts = vscode.Uri.joinPath(extensionUri, 'dist', 'webview');
  const media = vscode.Uri.joinPath(extensionUri, 'media');
  return {
    roots: [scripts, media],
    script: (entry) => vscode.Uri.joinPath(scripts, `${entry}.js`),
    stylesheet: vscode.Uri.joinPath(media, 'holon.css'),
  };
}
