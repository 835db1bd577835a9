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
  setStorePassword: 'holon.setStorePassword',
  clearStorePassword: 'holon.clearStorePassword',
  getStarted: 'holon.getStarted',
  addPasskey: 'holon.addPasskey',
} as const;

/**
 * The context keys package.json's `when` clauses read (contributes.menus.commandPalette), so that the
 * palette offers only the commands that apply now. A command stays runnable (the view's buttons and the
 * notifications run it); the palette just does not list it.
 */
export const CONTEXT_KEYS = {
  /** Something waits for a human's decision: Approve… and Reject… apply. */
  approvalsWaiting: 'holon.approvalsWaiting',
  /** The user's settings name a team store: its password commands apply. */
  teamStore: 'holon.teamStore',
  /** A personnel proposal is open: Show Personnel Proposal has one to show. */
  proposalsOpen: 'holon.proposalsOpen',
  /** A passkey guards the state: only the human's passkey decides (the walkthrough's first step). */
  hasPasskey: 'holon.hasPasskey',
  /** A mandate exists: Edit Mandate has one to edit (and the walkthrough's third step is done). */
  hasMandates: 'holon.hasMandates',
  /** Some account has money (the walkthrough's second step). */
  hasFunds: 'holon.hasFunds',
  /** The editor's server acts for a mandate: Copilot sees "Holon · <mandate>" (the walkthrough's fourth step). */
  mandateSelected: 'holon.mandateSelected',
  /** Some agent was called and paid (the walkthrough's fifth step). */
  hasSpends: 'holon.hasSpends',
  /** A human approved something once (the walkthrough's sixth step). */
  approvedOnce: 'holon.approvedOnce',
  /** The human has opened the receipts panel once (the walkthrough's last step). */
  receiptsShown: 'holon.receiptsShown',
} as const;

/** The walkthrough package.json contributes, as `publisher.name#id` (Holon: Get Started opens it). */
export const WALKTHROUGH = 'holon.holon#holon.start';

/** The walkthrough's steps that a context key marks done, by that key (package.json's `onContext` events say the same). */
export const WALKTHROUGH_STEPS: Readonly<Partial<Record<(typeof CONTEXT_KEYS)[keyof typeof CONTEXT_KEYS], string>>> = {
  [CONTEXT_KEYS.hasPasskey]: 'passkey',
  [CONTEXT_KEYS.hasFunds]: 'fund',
  [CONTEXT_KEYS.hasMandates]: 'mandate',
  [CONTEXT_KEYS.mandateSelected]: 'connect',
  [CONTEXT_KEYS.hasSpends]: 'firstCall',
  [CONTEXT_KEYS.approvedOnce]: 'approve',
  [CONTEXT_KEYS.receiptsShown]: 'receipt',
};
