/** The terms core: H, the ATR's forms, and the MACs of what the channel tools take back. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { atrBytes, atrHash, atrView, isCanonicalBase64 } from '../../src/core/terms/atr.ts';
import { macVerifies, withMac } from '../../src/core/terms/mac.ts';
import { ROOT } from '../helpers.ts';

describe('the ATR', () => {
  test('H is the SHA-256 of the exact bytes; the view gives base64 and, when it is UTF-8, the text', () => {
    const bytes = new TextEncoder().encode('Terms: 0.01 USDC per page. Café.');
    assert.equal(atrHash(bytes), `0x${createHash('sha256').update(bytes).digest('hex')}`);
    assert.deepEqual(atrView(bytes), { base64: Buffer.from(bytes).toString('base64'), utf8: 'Terms: 0.01 USDC per page. Café.' });
    assert.equal(atrView(new Uint8Array([0xff, 0xfe, 0x41])).utf8, null, 'not UTF-8: no text');
    assert.deepEqual([...atrBytes(atrView(bytes).base64)], [...bytes]);
  });

  test('only canonical padded standard base64 is an ATR argument', () => {
    for (const ok of ['', 'QQ==', 'QUI=', 'QUJD', Buffer.from([0, 255, 128]).toString('base64')]) assert.equal(isCanonicalBase64(ok), true, ok);
    for (const bad of ['QQ', 'QR==', 'QUJ=', 'Q U=', 'QQ==\n', '-_8=', 'QUJD=', '====', 'QQ=A', 'Zg===']) assert.equal(isCanonicalBase64(bad), false, bad);
  });
});

describe('MACs', () => {
  test('a value comes back only unchanged: any member changed, added or removed is refused; order does not matter', () => {
    const hold = withMac({ pairing: 'x402/channel/eip155', atrHash: `0x${'ab'.repeat(32)}`, charged: '10', channel: { id: '0x01', cap: '100' } });
    assert.equal(macVerifies(hold), true);
    const reordered = Object.fromEntries(Object.entries(hold).reverse());
    assert.equal(macVerifies(reordered), true);
    assert.equal(macVerifies({ ...hold, charged: '11' }), false);
    assert.equal(macVerifies({ ...hold, extra: 1 }), false);
    const { charged: _c, ...removed } = hold;
    assert.equal(macVerifies(removed), false);
    assert.equal(macVerifies({ ...hold, channel: { ...hold.channel, cap: '1000' } }), false);
    assert.equal(macVerifies({ ...hold, mac: hold.mac.toUpperCase() }), false);
    for (const junk of [null, 'x', [], { mac: 1 }, {}]) assert.equal(macVerifies(junk), false);
  });

  test('a MAC made by another process (or before a restart) is refused', () => {
    const script = `const { withMac } = require(${JSON.stringify(path.join(ROOT, 'src/core/terms/mac.ts'))}); process.stdout.write(JSON.stringify(withMac({ a: 1 })));`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    const other = JSON.parse(r.stdout) as Record<string, unknown>;
    assert.equal(macVerifies(other), false);
    assert.equal(macVerifies(withMac({ a: 1 })), true);
  });
});

describe('the skill', () => {
  test('is an Agent Skill: its folder\'s name, the seed\'s description, thirteen instructions; contributed to the editor\'s agents', async () => {
    const fs = await import('node:fs');
    const dir = path.join(ROOT, 'skills', 'confirming-the-atr-hash-before-paying');
    const text = fs.readFileSync(path.join(dir, 'SKILL.md'), 'utf8');
    const front = /^---\n([\s\S]*?)\n---\n/.exec(text)?.[1] ?? '';
    assert.match(front, /^name: confirming-the-atr-hash-before-paying$/m);
    assert.match(front, /^description: Use before approving any payment to a seller whose payment request advertises an ATR hash \(an x402 402, an MPP challenge, or any pairing the atr_\* tools list\)\. Confirms that the payment you sign carries the SHA-256 of the ATR you received, or, where the proof is the agreement payment, that the agreement payment carries it\.$/m);
    const steps = [...text.matchAll(/^(\d+)\. /gm)].map((m) => Number(m[1]));
    assert.deepEqual(steps, Array.from({ length: 13 }, (_, i) => i + 1));
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { contributes: { chatSkills?: { path: string }[] } };
    assert.deepEqual(pkg.contributes.chatSkills, [{ path: './skills/confirming-the-atr-hash-before-paying/SKILL.md' }]);
  });
});
