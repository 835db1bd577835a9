import * as vscode from 'vscode';
import type { CommandDeps, FeatureCommands } from './command.ts';
import { givenOrTyped } from './command.ts';

/**
 * The state's one wallet, which signs the payments the mandates allow: created here, or imported from
 * the human's key; the same wallet `holon wallet` shows in the editor's terminals.
 */
export function walletCommands({ wallet }: CommandDeps): FeatureCommands<'createWallet' | 'importWallet'> {
  return {
    createWallet: async () => {
      const create = 'Create Wallet';
      const answer = await vscode.window.showInformationMessage(
        "Holon: create this workspace's wallet, to sign the payments your mandates allow? Its key stays in Holon's " +
          "state folder (readable by you only), where the editor's servers and `holon` in its terminals sign with it; " +
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
        prompt:
          "The private key (0x and 64 hex digits). It becomes this workspace's wallet, kept in Holon's state folder " +
          '(readable by you only), never in the workspace, the ledger or a log.',
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
