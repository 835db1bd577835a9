/** What Add Agents tells the human when a discovery listing came in: what was added, what was skipped and why. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listingEntries } from '../../src/core/market/discovery.ts';
import { TEST_NETWORK, TEST_USDC } from '../../src/core/rails/assets.ts';
import { addedSummary } from '../../src/editor/agentsAdded.ts';

const item = (resource: string, x402Version = 2): unknown => ({
  resource,
  type: 'http',
  x402Version,
  lastUpdated: '2026-01-01T00:00:00Z',
  accepts: [
    {
      scheme: 'exact',
      network: TEST_NETWORK,
      asset: TEST_USDC,
      amount: '1000',
      payTo: `0x${'1'.repeat(40)}`,
      maxTimeoutSeconds: 60,
      extra: {},
    },
  ],
  extensions: { bazaar: { info: { input: { type: 'http', method: 'GET' } } } },
});

test("Add Agents' message names what was added, and each skipped resource with its reason", () => {
  const { entries, skipped } = listingEntries([item('https://x.example/ok'), item('https://x.example/v1', 1)]);
  const added = entries.map((e) => ({ ...e, source: 'listing', added_at: '' }));
  assert.equal(
    addedSummary(added, { skipped, truncated: false }),
    `added ${entries[0]?.manifest.id}. Skipped 1: "https://x.example/v1" (it is an x402 version 1 item; Holon reads version 2).`,
  );
});

test('past three skipped resources it counts the rest, and says when the listing was cut short', () => {
  const { entries, skipped } = listingEntries([
    item('https://x.example/ok'),
    ...[1, 2, 3, 4, 5].map((n) => item(`https://x.example/v${n}`, 1)),
  ]);
  const text = addedSummary(
    entries.map((e) => ({ ...e, source: 'listing', added_at: '' })),
    { skipped, truncated: true },
  );
  assert.match(
    text,
    /Skipped 5: "https:\/\/x\.example\/v1" \([^)]*\); "https:\/\/x\.example\/v2" \([^)]*\); "https:\/\/x\.example\/v3" \([^)]*\); and 2 more\./,
  );
  assert.match(text, /only its first resources were read\.$/);
});
