/**
 * The token the chain deploys is its source: the committed artifact (examples/chain/testUsdcArtifact.ts)
 * is exactly what the pinned solc compiles from contracts/TestUSDC.sol. A file of its own: solc-js
 * compiles synchronously, for seconds, and nothing else should wait on this process meanwhile.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { ARTIFACT, artifactText, compileTestUsdc, SOLC_VERSION } from '../../examples/chain/compile.ts';

test('the committed artifact is what the pinned solc compiles from the source', () => {
  const fresh = compileTestUsdc();
  assert.ok(fresh.solc.startsWith(`${SOLC_VERSION}+`), fresh.solc);
  assert.equal(
    fs.readFileSync(ARTIFACT, 'utf8'),
    artifactText(fresh),
    'run `node --import tsx examples/chain/compile.ts` after changing the source',
  );
});
