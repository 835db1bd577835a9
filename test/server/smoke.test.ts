import assert from 'node:assert/strict';
import { test } from 'node:test';
import { connect, demoRuntime, FACTURE, INVOICES } from '../helpers.ts';

test('a call under the threshold runs, one over it is approved by elicitation', async () => {
  const { runtime, cleanup } = await demoRuntime();
  try {
    const client = await connect(runtime, { elicit: () => ({ action: 'accept', content: { decision: 'Approve' } }) });
    const small = await client.callTool({ name: 'call_agent', arguments: { capability: 'extraction.table', input: { file: FACTURE } } });
    assert.equal((small.structuredContent as { status: string }).status, 'succeeded');
    const big = await client.callTool({ name: 'call_agent', arguments: { agent: 'holon-labs/invoice-pipeline', input: { files: INVOICES } } });
    const s = big.structuredContent as { status: string; delegated_calls: number; cost: { amount: string } };
    assert.equal(s.status, 'succeeded');
    assert.equal(s.delegated_calls, 4);
    assert.equal(s.cost.amount, '0.1906');
    await client.close();
  } finally {
    await cleanup();
  }
});
