import * as vscode from 'vscode';
import type { CommandDeps, FeatureCommands } from './command.ts';
import { givenOrTyped } from './command.ts';

/** The wallet that signs the payments the mandates allow: created here, or imported from the human's key. */
export function walletCommands({ wallet }: CommandDeps): FeatureCommands<'createWallet' | 'importWallet'> {
  return {
    createWallet: async () => {
      const create = 'Create Wallet';
      const answer = await vscode.window.showInformationMessage(
        "Holon: create a wallet to sign the payments your mandates allow? Its key stays in VS Code's secret storage; " +
          'fund it from your own wallet.',
        { modal: true },
        create,
      );
      if (answer !== create) return undefined;
      const address = await wallet.keep(undefined);
      void vscode.window.showInformationMessage(`Holon: wallet ${address} created. Fund it with the tokens your sellers take.`);
      return address;
    },
    importWallet: async (key) => {
      // A key passed by another extension's call is taken; a human pastes theirs into a password box.
      const pasted = await givenOrTyped(key, {
        title: 'Holon: import a wallet',
        prompt: "The private key (0x and 64 hex digits). It is kept in VS Code's secret storage, never in a file.",
        password: true,
        ignoreFocusOut: true,
      });
      if (!pasted) return undefined;
      const address = await wallet.keep(pasted);
      void vscode.window.showInformationMessage(`Holon: wallet ${address} imported.`);
      return address;
    },
  };
}
