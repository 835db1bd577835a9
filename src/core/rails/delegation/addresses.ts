/**
 * Where MetaMask's Delegation Framework (contracts 1.3.0) is on each chain Holon can cap a mandate on:
 * Base and Base Sepolia (MetaMask's own deployment, as `@metamask/delegation-deployments` lists it), and
 * the local chain (examples/chain/framework.ts, deployed by CREATE2 with Holon's salt). Written here rather
 * than read from the package, which is ten times the size of everything else Holon ships; two tests hold
 * these tables to the package and to what the local chain deploys.
 */
import type { Address } from 'viem';
import { HolonError } from '../../kernel/errors.ts';

/** The framework's contracts Holon uses, by the names the deployments table gives them. */
export interface Framework {
  DelegationManager: Address;
  SimpleFactory: Address;
  /** The account's implementation, behind each account's ERC1967 proxy. */
  HybridDeleGatorImpl: Address;
  AllowedTargetsEnforcer: Address;
  AllowedMethodsEnforcer: Address;
  AllowedCalldataEnforcer: Address;
  ERC20PeriodTransferEnforcer: Address;
  ERC20TransferAmountEnforcer: Address;
  TimestampEnforcer: Address;
  LimitedCallsEnforcer: Address;
  ExactCalldataEnforcer: Address;
}

/** MetaMask's deployment of 1.3.0: the same addresses on Base and on Base Sepolia. */
const METAMASK_1_3_0: Framework = {
  DelegationManager: '0xdb9B1e94B5b69Df7e401DDbedE43491141047dB3',
  SimpleFactory: '0x69Aa2f9fe1572F1B640E1bbc512f5c3a734fc77c',
  HybridDeleGatorImpl: '0x48dBe696A4D990079e039489bA2053B36E8FFEC4',
  AllowedTargetsEnforcer: '0x7F20f61b1f09b08D970938F6fa563634d65c4EeB',
  AllowedMethodsEnforcer: '0x2c21fD0Cb9DC8445CB3fb0DC5E7Bb0Aca01842B5',
  AllowedCalldataEnforcer: '0xc2b0d624c1c4319760C96503BA27C347F3260f55',
  ERC20PeriodTransferEnforcer: '0x474e3Ae7E169e940607cC624Da8A15Eb120139aB',
  ERC20TransferAmountEnforcer: '0xf100b0819427117EcF76Ed94B358B1A5b5C6D2Fc',
  TimestampEnforcer: '0x1046bb45C8d673d4ea75321280DB34899413c069',
  LimitedCallsEnforcer: '0x04658B29F6b82ed55274221a06Fc97D318E25416',
  ExactCalldataEnforcer: '0x99F2e9bF15ce5eC84685604836F71aB835DBBdED',
};

/** The local chain's (examples/chain/framework.ts): SimpleFactory placed at its Base address, the rest through it. */
const LOCAL: Framework = {
  DelegationManager: '0xf2D9c6a99D8e76A0f8124534Bbeda4737b613037',
  SimpleFactory: '0x69Aa2f9fe1572F1B640E1bbc512f5c3a734fc77c',
  HybridDeleGatorImpl: '0xE38ec11a289B456dD2131e775eb9B74E45041C54',
  AllowedTargetsEnforcer: '0xc85727b718969D05F1e4f640fa4a5c9b40D81d01',
  AllowedMethodsEnforcer: '0x6B286c44a9663d1429EA317d4a686CB3274Fc68c',
  AllowedCalldataEnforcer: '0x9bc65b2EF9fBcaA329DC815393872506A86dbF80',
  ERC20PeriodTransferEnforcer: '0x21ff942D5E4bb41B2b57Ff9ad21b169D5F01b22E',
  ERC20TransferAmountEnforcer: '0x634B3374346a55B8B25fB1d7f877411599AB44B8',
  TimestampEnforcer: '0xeC2aDBF178B88459663a7a4DBF082D7569a9CF46',
  LimitedCallsEnforcer: '0x8a7d4c8C27e2ce64065fff632dA4Ed552F24f25F',
  ExactCalldataEnforcer: '0x17E63E8E433f738D9A74899A4c956Bb7A0A80384',
};

/** The framework by chain id: Base (8453), Base Sepolia (84532), the local chain (31337). */
export const FRAMEWORKS: Readonly<Record<number, Framework>> = { 8453: METAMASK_1_3_0, 84532: METAMASK_1_3_0, 31337: LOCAL };

/** The framework on chain `chainId`; refused (`invalid_input`) on a chain where Holon knows none. */
export function frameworkOn(chainId: number): Framework {
  const found = FRAMEWORKS[chainId];
  if (!found) {
    throw new HolonError(
      'invalid_input',
      `Holon knows no Delegation Framework on chain ${chainId}: a mandate's limits can be held on chain only on Base (8453), ` +
        'Base Sepolia (84532) and the local chain (31337)',
    );
  }
  return found;
}
