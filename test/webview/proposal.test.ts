import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { personnelOf } from '../../src/core/office/personnel.ts';
import { personnelYaml, sideBySide } from '../../src/core/office/personnelDiff.ts';
import type { Mandate } from '../../src/core/kernel/model.ts';
import { is } from '../../src/webview/protocol/messages.ts';
import type { ProposalCommand, ProposalState } from '../../src/webview/protocol/proposal.ts';
import { ProposalCommand as ProposalCommandSchema, ProposalState as ProposalStateSchema } from '../../src/webview/protocol/proposal.ts';
import { renderProposal } from '../../src/webview/render/proposal.ts';
import type { Page } from './fakes.ts';
import { byTestId, click, get, HOSTILE, page } from './fakes.ts';

let p: Page;
let posted: ProposalCommand[];
const post = (command: ProposalCommand): void => {
  assert.equal(is(ProposalCommandSchema, command), true, `posted a malformed command: ${JSON.stringify(command)}`);
  posted.push(command);
};
beforeEach(() => {
  p = page();
  posted = [];
});
afterEach(() => p.close());

const mandate = (capabilities: Mandate['capabilities']): Mandate => ({
  id: 'demo/ada',
  account: 'demo',
  name: 'ada',
  grantee: { slug: 'ada', name: 'Ada', role: 'engineer', manager: 'agent:lead' },
  currency: 'EUR',
  budget: { total: '5.00', per_day: null, per_call: null },
  approval_threshold: '0.50',
  toolsets: ['office'],
  capabilities,
  data: { regions: null, retention_days: null, training: false },
  expires_at: null,
  status: 'active',
  created_at: '2026-12-01T00:00:00Z',
  updated_at: '2026-12-01T00:00:00Z',
});

function state(overrides: Partial<ProposalState> = {}): ProposalState {
  const before = personnelOf(mandate([{ name: 'mail.read' }, { name: 'forge.write', params: { repos: ['site'] } }]));
  const after = personnelOf(mandate([{ name: 'mail.read' }]));
  const s: ProposalState = {
    id: 'prop_1',
    approval: 'apr_1',
    kind: 'change',
    title: 'Change ada ⚠ removes 1',
    slug: 'ada',
    proposer: 'lead (demo/lead)',
    reason: 'moves to docs',
    status: 'open',
    removals: ['forge.write'],
    gains: [],
    changes: [],
    rows: sideBySide(personnelYaml(before), personnelYaml(after)),
    decidable: true,
    ...overrides,
  };
  assert.equal(is(ProposalStateSchema, s), true);
  return s;
}

describe('personnel change diff panel', () => {
  test('the removals come first, before the reason and the diff; the removed lines are marked on the left only', () => {
    renderProposal(p.root, state(), post);
    const sections = [...p.root.querySelectorAll('section')];
    assert.equal(sections[0]?.getAttribute('data-testid'), 'proposal-removals-block');
    assert.equal(get(p.root, 'proposal-removes').textContent, 'Removes 1');
    const removed = [...p.root.querySelectorAll('td.del')].map((td) => td.textContent);
    assert.deepEqual(removed, ['  - forge.write:', '      repos:', '        - site']);
    assert.equal(p.root.querySelectorAll('td.ins').length, 0);
  });

  test('Merge and Reject post the approval once, on click only; nothing to decide once it is merged', () => {
    renderProposal(p.root, state(), post);
    assert.deepEqual(posted, []);
    click(get(p.root, 'proposal-merge'));
    click(get(p.root, 'proposal-merge'));
    assert.deepEqual(posted, [{ type: 'merge', approval: 'apr_1' }]);
    renderProposal(p.root, state({ status: 'merged', decidable: false }), post);
    assert.equal(byTestId(p.root, 'proposal-merge'), null);
    assert.match(get(p.root, 'proposal-status').textContent ?? '', /^Merged/);
  });

  test('hostile text from the agent stays text', () => {
    renderProposal(p.root, state({ title: HOSTILE, reason: HOSTILE, removals: [HOSTILE], rows: [{ kind: 'added', left: null, right: HOSTILE }] }), post);
    assert.equal(p.root.querySelectorAll('img, script').length, 0);
    assert.equal(get(p.root, 'proposal-title').textContent, HOSTILE);
  });
});
