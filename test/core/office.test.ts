/** The office's pure parts: the personnel file's form, its plain-English change, the side-by-side diff, the harness lists. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { grantOfEntry, personnelChange, personnelOf } from '../../src/core/office/personnel.ts';
import { sideBySide } from '../../src/core/office/personnelDiff.ts';
import { mergeEvents } from '../../src/core/office/merge.ts';
import type { Proposal } from '../../src/core/office/slice.ts';
import { harnessPermissions, OFFICE_TOOL_CAPABILITIES } from '../../src/core/office/tools.ts';
import type { Mandate } from '../../src/core/kernel/model.ts';

const mandate = (capabilities: Mandate['capabilities'], status: Mandate['status'] = 'active'): Mandate => ({
  id: 'demo/ada',
  account: 'demo',
  name: 'ada',
  grantee: { slug: 'ada', name: 'Ada', role: 'engineer', manager: 'agent:lead' },
  currency: 'EUR',
  budget: { total: '5.00', per_day: '2.00', per_call: null },
  approval_threshold: '0.50',
  toolsets: ['office'],
  capabilities,
  data: { regions: null, retention_days: null, training: false },
  expires_at: null,
  status,
  created_at: '2026-12-01T00:00:00Z',
  updated_at: '2026-12-01T00:00:00Z',
});

describe('personnel.yaml form', () => {
  test('a bare name, {name: params} and the list shorthand are the same grants as the mandate holds', () => {
    assert.deepEqual(grantOfEntry('mail.read'), { name: 'mail.read' });
    assert.deepEqual(grantOfEntry({ 'mail.send': ['lead'] }), { name: 'mail.send', params: { to: ['lead'] } });
    assert.deepEqual(grantOfEntry({ 'forge.write': { repos: ['site'] } }), { name: 'forge.write', params: { repos: ['site'] } });
    assert.deepEqual(grantOfEntry({ 'net.egress': ['api.example.com'] }), { name: 'net.egress', params: { values: ['api.example.com'] } });
    for (const bad of ['Mail Read', '', { a: 1, b: 2 }, { 'x.y': 5 }] as const) assert.throws(() => grantOfEntry(bad as never), /capabilit|parameters/);
    // A parameter that would not check as written is refused, never read as "no restriction".
    for (const bad of [{ 'mail.send': { to: 'nobody' } }, { 'mail.send': { To: ['bob'] } }, { 'forge.write': { repos: 'only-this' } }, { 'forge.read': { repos: [1] } }]) {
      assert.throws(() => grantOfEntry(bad), /takes only|list of names/, JSON.stringify(bad));
    }
  });

  test('a re-parameterised capability is a change, not a loss; status and budget changes are named', () => {
    const before = personnelOf(mandate([{ name: 'mail.read' }, { name: 'forge.write', params: { repos: ['a'] } }, { name: 'hr.propose' }]));
    const after = { ...personnelOf(mandate([{ name: 'mail.read' }, { name: 'forge.write', params: { repos: ['a', 'b'] } }, { name: 'office.read' }], 'suspended')), budget: { ...before.budget, per_day: '3.00' } };
    assert.deepEqual(personnelChange(before, after), {
      gains: ['gains: office.read'],
      losses: ['hr.propose'],
      changes: ['changes: forge.write ({"repos":["a"]} → {"repos":["a","b"]})', 'changes: status (hired → suspended)', 'changes: budget per day (2.00 EUR → 3.00 EUR)'],
    });
  });

  test('a limit typed as "2" is written "2.00"; a proposal whose file was kept as "2" still merges, a changed file does not', () => {
    const typed: Mandate = { ...mandate([{ name: 'mail.read' }]), budget: { total: '5', per_day: '2', per_call: '0.5' } };
    const file = personnelOf(typed);
    assert.deepEqual(file.budget, { currency: 'EUR', total: '5.00', per_day: '2.00', per_call: '0.50' });
    // What an earlier build kept as a proposal's `before`: the limits as typed.
    const kept = { ...file, budget: { ...file.budget, total: '5', per_day: '2', per_call: '0.5' } };
    const state = { mandates: { [typed.id]: typed }, office: { proposals: {} } } as unknown as Parameters<typeof mergeEvents>[0];
    const proposal = { id: 'prop_1', kind: 'change', slug: 'ada', target: typed.id, before: kept, after: { ...file, status: 'suspended' } } as unknown as Proposal;
    const merged = mergeEvents(state, proposal, Date.parse('2026-12-02T00:00:00Z'));
    assert.deepEqual(merged.map((e) => e.type), ['mandate.updated', 'policy.merged']);
    const changed = { ...proposal, before: { ...kept, budget: { ...kept.budget, per_day: '3' } } };
    assert.throws(() => mergeEvents(state, changed, Date.parse('2026-12-02T00:00:00Z')), /changed after this proposal was made/);
  });

  test('a hire names every field it sets, not only its capabilities', () => {
    const hire = { ...personnelOf(mandate([{ name: 'mail.read' }])), budget: { currency: 'EUR', total: '50.00', per_day: '900000.00', per_call: null } };
    const c = personnelChange(null, hire);
    assert.deepEqual(c.gains, ['gains: mail.read']);
    assert.ok(c.changes.includes('changes: budget per day (none → 900000.00 EUR)'), c.changes.join('\n'));
    assert.ok(c.changes.includes('changes: manager (none → agent:lead)'));
    assert.ok(c.changes.includes('changes: toolsets (none → office)'));
  });

  test('side by side: removed lines pair with the lines that replace them; the rest stands alone', () => {
    assert.deepEqual(sideBySide('a\nb\nc\n', 'a\nB\nc\nd\n'), [
      { kind: 'same', left: 'a', right: 'a' },
      { kind: 'changed', left: 'b', right: 'B' },
      { kind: 'same', left: 'c', right: 'c' },
      { kind: 'added', left: null, right: 'd' },
    ]);
    assert.deepEqual(sideBySide('a\nb\n', 'a\n'), [
      { kind: 'same', left: 'a', right: 'a' },
      { kind: 'removed', left: 'b', right: null },
    ]);
  });
});

describe("Claude Code's permission lists", () => {
  test('the tools the mandate grants are allowed, every other office tool denied, whoami always allowed', () => {
    const { allow, deny } = harnessPermissions('holon-demo-ada', mandate([{ name: 'mail.read' }, { name: 'forge.read', params: { repos: ['site'] } }]));
    assert.deepEqual(allow, ['whoami', 'mail_inbox', 'mail_read', 'mail_reply', 'mail_close', 'forge_list_prs'].map((t) => `mcp__holon-demo-ada__${t}`));
    assert.equal(allow.length + deny.length, Object.keys(OFFICE_TOOL_CAPABILITIES).length);
    assert.ok(deny.includes('mcp__holon-demo-ada__forge_open_pr'));
  });
});
