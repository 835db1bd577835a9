/** Command ids, as package.json contributes them. */
export const COMMANDS = {
  fundAccount: 'holon.fundAccount',
  selectMandate: 'holon.selectMandate',
  createMandate: 'holon.createMandate',
  editMandate: 'holon.editMandate',
  showPanel: 'holon.showPanel',
  approve: 'holon.approve',
  reject: 'holon.reject',
  showReceipts: 'holon.showReceipts',
  addAgent: 'holon.addAgent',
  connectClaudeCode: 'holon.connectClaudeCode',
  verifyLedger: 'holon.verifyLedger',
  openStateFolder: 'holon.openStateFolder',
  createWallet: 'holon.createWallet',
  importWallet: 'holon.importWallet',
  showProposal: 'holon.showProposal',
  createRunToken: 'holon.createRunToken',
} as const;
