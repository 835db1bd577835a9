/**
 * The contracts the chain runs are their sources: each committed artifact (examples/chain/*Artifact.ts) is
 * exactly what its pinned solc compiles from its source — the token's and the upto proxy's in the repo,
 * Permit2's as `@uniswap/v4-periphery` ships it. A file of its own: solc-js compiles synchronously, for
 * seconds (Permit2, through the IR pipeline, twenty), and nothing else should wait on this process meanwhile.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { artifactText, compileContract, CONTRACTS } from '../../examples/chain/compile.ts';

for (const spec of CONTRACTS) {
  test(`the committed ${spec.name} artifact is what solc ${spec.solc.version} compiles from its source`, () => {
    const fresh = compileContract(spec);
    assert.ok(fresh.solc.startsWith(`${spec.solc.version}+`), fresh.solc);
    assert.equal(
      fs.readFileSync(spec.artifact, 'utf8'),
      artifactText(fresh, spec),
      'run `node --import tsx examples/chain/compile.ts` after changing a source',
    );
  });
}
