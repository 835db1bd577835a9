/**
 * Copies the creation code of the Delegation Framework contracts the local chain runs from MetaMask's npm
 * package `@metamask/delegation-abis` (its `bytecode` entry, version 1.3.0 of the contracts) into the
 * committed `delegationArtifact.ts`, which framework.ts deploys. The package is a development dependency
 * of 10 MB: it is read here, when the artifact is written and by its test, never by a bundle.
 * `node --import tsx examples/chain/delegationCopy.ts` writes the artifact again after the package changes;
 * test/chain/delegationArtifact.test.ts fails when the committed file differs from what this writes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as bytecode from '@metamask/delegation-abis/bytecode';

/** The contracts the local chain deploys, in the order framework.ts deploys them. */
export const DELEGATION_CONTRACTS = [
  'SimpleFactory',
  'DelegationManager',
  'AllowedTargetsEnforcer',
  'AllowedMethodsEnforcer',
  'AllowedCalldataEnforcer',
  'ERC20PeriodTransferEnforcer',
  'ERC20TransferAmountEnforcer',
  'TimestampEnforcer',
  'LimitedCallsEnforcer',
  'ExactCalldataEnforcer',
  'SCL_RIP7212',
  'HybridDeleGator',
] as const;

export const DELEGATION_ARTIFACT = path.join(__dirname, 'delegationArtifact.ts');

/** The artifact module's text: what is committed, byte for byte. */
export function delegationArtifactText(): string {
  const code = bytecode as unknown as Record<string, string | undefined>;
  const lines = DELEGATION_CONTRACTS.map((name) => {
    const hex = code[name];
    if (!hex?.startsWith('0x')) throw new Error(`@metamask/delegation-abis/bytecode has no ${name}`);
    return `  ${name}: ${JSON.stringify(hex)},`;
  });
  return [
    '// Written by `node --import tsx examples/chain/delegationCopy.ts` from @metamask/delegation-abis/bytecode; do not edit.',
    '// test/chain/delegationArtifact.test.ts fails when this differs from the package.',
    "import type { Hex } from 'viem';",
    '',
    "/** Creation code by contract name. HybridDeleGator's still holds its placeholder for the SCL_RIP7212 library. */",
    'export const DELEGATION_BYTECODE = {',
    ...lines,
    '} as const satisfies Record<string, Hex>;',
    '',
  ].join('\n');
}

if (require.main === module) {
  fs.writeFileSync(DELEGATION_ARTIFACT, delegationArtifactText());
  process.stdout.write(`${path.relative(process.cwd(), DELEGATION_ARTIFACT)}: ${DELEGATION_CONTRACTS.length} contracts\n`);
}
