/**
 * The folded state: the slices of every module, side by side. Each slice owns its fields, its events and
 * their fold (see slice.ts); this file only puts them together.
 */
import type { ActivityFields } from './activity.ts';
import { activitySlice } from './activity.ts';
import type { ApprovalEvents, ApprovalsFields } from '../approvals/slice.ts';
import { admitTransaction, sealedBy } from './authority.ts';
import { approvalsSlice } from '../approvals/slice.ts';
import type { FxEvents, FxFields } from '../money/fx.ts';
import { fxSlice } from '../money/fx.ts';
import type { FiledKey, JournalEvent, Reducer } from '../store/store.ts';
import { upcast } from './legacy.ts';
import type { MandateEvents, MandatesFields } from '../accounts/mandates.ts';
import { mandatesSlice } from '../accounts/mandates.ts';
import type { OfficeEvents, OfficeFields } from '../office/slice.ts';
import { officeSlice } from '../office/slice.ts';
import type { CatalogEvents, CatalogFields } from '../market/catalog.ts';
import { catalogSlice } from '../market/catalog.ts';
import type { ReceiptEvents, ReceiptsFields } from '../market/receipts.ts';
import { receiptsSlice } from '../market/receipts.ts';
import type { PresenceEvents, PresenceFields } from '../accounts/presence.ts';
import { presenceSlice } from '../accounts/presence.ts';
import type { RunTokenEvents, RunTokensFields } from '../accounts/runTokens.ts';
import { runTokensSlice } from '../accounts/runTokens.ts';
import { combineSlices } from '../store/slice.ts';
import type { SpendEvents, SpendFields } from '../money/spend.ts';
import { spendSlice } from '../money/spend.ts';
import type { PurchaseEvents, PurchasesFields } from '../commerce/purchases.ts';
import { purchasesSlice } from '../commerce/purchases.ts';
import type { MemoryEvents, MemoryFields } from '../memory/slice.ts';
import { memorySlice } from '../memory/slice.ts';
import type { MoneyEvents, MoneyFields } from '../money/slice.ts';
import { moneySlice } from '../money/slice.ts';
import type { SettlementEvents, SettlementFields } from '../rails/settlement.ts';
import { settlementSlice } from '../rails/settlement.ts';
import type { TeamEvents, TeamFields } from '../accounts/team.ts';
import { teamSlice } from '../accounts/team.ts';
import type { PasskeyEvents, PasskeysFields } from '../accounts/passkeys.ts';
import { passkeysSlice } from '../accounts/passkeys.ts';
import type { ChainAccountEvents, ChainAccountFields } from '../accounts/chainAccount.ts';
import { chainAccountSlice } from '../accounts/chainAccount.ts';
import type { WorkspaceEvents, WorkspacesFields } from '../accounts/workspaces.ts';
import { workspacesSlice } from '../accounts/workspaces.ts';

/** Everything the journal folds into: the same in every process that reads it. */
export type HolonState = MandatesFields &
  FxFields &
  SpendFields &
  ApprovalsFields &
  CatalogFields &
  ReceiptsFields &
  RunTokensFields &
  PresenceFields &
  OfficeFields &
  MoneyFields &
  SettlementFields &
  MemoryFields &
  PurchasesFields &
  TeamFields &
  PasskeysFields &
  ChainAccountFields &
  WorkspacesFields &
  ActivityFields;

/** Every event type the slices fold, with its payload. */
export type EventMap = MandateEvents &
  FxEvents &
  SpendEvents &
  ApprovalEvents &
  CatalogEvents &
  ReceiptEvents &
  RunTokenEvents &
  PresenceEvents &
  OfficeEvents &
  MoneyEvents &
  SettlementEvents &
  MemoryEvents &
  PurchaseEvents &
  TeamEvents &
  PasskeyEvents &
  ChainAccountEvents &
  WorkspaceEvents;

const combined = combineSlices<HolonState>([
  mandatesSlice,
  fxSlice,
  spendSlice,
  approvalsSlice,
  catalogSlice,
  receiptsSlice,
  runTokensSlice,
  presenceSlice,
  officeSlice,
  moneySlice,
  settlementSlice,
  memorySlice,
  purchasesSlice,
  teamSlice,
  passkeysSlice,
  chainAccountSlice,
  workspacesSlice,
  // Last: it only reads what the others' events say, for the humans' views.
  activitySlice,
]);

/**
 * The reducer every process folds the journal with; old event shapes are read as today's, and a
 * transaction is admitted only from a signer whose role allows every event in it (authority.ts).
 */
export const holonReducer: Reducer<HolonState> = {
  ...combined,
  admit: admitTransaction,
  sealed: sealedBy,
  apply: (state: HolonState, event: JournalEvent) => {
    for (const e of upcast(state, event)) combined.apply(state, e);
  },
  // Keys are computed on today's shapes, and filed under the offset of the event that was written.
  // Called for every event folded: a key named twice is merged in a short list, with no map or copies.
  keys: (state: HolonState, event: JournalEvent) => {
    const out: FiledKey[] = [];
    for (const e of upcast(state, event)) {
      for (const k of combined.keys!(state, e)) {
        const i = out.findIndex((o) => o.key === k.key);
        if (i < 0) out.push({ key: k.key, first: Boolean(k.first) });
        else if (k.first) out[i] = { key: k.key, first: true };
      }
    }
    return out;
  },
};

/** An empty state. */
export function initialState(): HolonState {
  return holonReducer.initial();
}
