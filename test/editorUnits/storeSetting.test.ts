/** The `holon.store` setting (no vscode): which URLs are used, where their password is kept, what the server is handed. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse } from 'pg-connection-string';
import { resolveStore } from '../../src/cli/args.ts';
import { HolonError } from '../../src/core/kernel/errors.ts';
import { STORE_ENV } from '../../src/core/store/url.ts';
import type { StoreSettingProblem } from '../../src/editor/storeSetting.ts';
import { serverStoreEnv, storeBeside, storeSecretKey, teamStoreFromSetting, withPassword } from '../../src/editor/storeSetting.ts';

/** The problem `raw` is refused for; fails when it is not refused, or not as a structured invalid_input. */
function refusal(raw: unknown): { problem: StoreSettingProblem; message: string } {
  try {
    teamStoreFromSetting(raw);
  } catch (err) {
    assert.ok(HolonError.is(err, 'invalid_input'), `refused with ${String(err)}`);
    assert.equal(err.details['setting'], 'holon.store');
    return { problem: err.details['problem'] as StoreSettingProblem, message: err.message };
  }
  assert.fail(`${JSON.stringify(raw)} was accepted`);
}

describe('the holon.store setting', () => {
  test('empty (or unset) is the workspace journal', () => {
    for (const raw of [undefined, null, '', '   ']) assert.equal(teamStoreFromSetting(raw), undefined, JSON.stringify(raw));
  });

  test('a postgres URL without a password is the team store, labelled host/database', () => {
    const team = teamStoreFromSetting(' postgres://ada@DB.Example.com:5432/holon ');
    assert.deepEqual(team, { url: 'postgres://ada@db.example.com:5432/holon', label: 'db.example.com/holon', secretKey: 'holon.store.password:postgres://ada@db.example.com:5432/holon' });
    assert.equal(teamStoreFromSetting('postgresql://ada@db.example.com:6543/ledger?sslmode=require')?.label, 'db.example.com:6543/ledger');
    assert.equal(teamStoreFromSetting('postgres://localhost')?.label, 'localhost/postgres');
    assert.equal(teamStoreFromSetting('postgres://ada@db.example.com/holon?host=other.example.com&port=6543')?.label, 'other.example.com:6543/holon', 'the label names the server the query sends the client to');
  });

  test('a URL holding a password is refused, and the refusal does not repeat it', () => {
    for (const raw of ['postgres://ada:hunter2@db.example.com/holon', 'postgres://ada:hunter2@db.example.com/holon?sslmode=require', 'postgres://ada@db.example.com/holon?password=hunter2', 'postgres://ada@db.example.com/holon?sslpassword=hunter2']) {
      const r = refusal(raw);
      assert.equal(r.problem, 'password_in_url', raw);
      assert.doesNotMatch(r.message, /hunter2/);
      assert.match(r.message, /Set Team Store Password/);
    }
  });

  test('anything but a postgres URL is refused, each with its own problem', () => {
    assert.equal(refusal('mysql://ada@db.example.com/holon').problem, 'not_postgres');
    assert.equal(refusal('https://db.example.com/holon').problem, 'not_postgres');
    assert.equal(refusal('db.example.com/holon').problem, 'not_a_url');
    assert.equal(refusal(42).problem, 'not_a_url');
    assert.equal(refusal(['postgres://ada@db.example.com/holon']).problem, 'not_a_url');
  });
});

describe('the password', () => {
  test('is kept under a key naming the whole URL: another server, user, database or query never gets it', () => {
    const key = (raw: string): string => teamStoreFromSetting(raw)!.secretKey;
    const base = key('postgres://ada@db.example.com/holon');
    assert.equal(base, storeSecretKey('postgres://ada@db.example.com/holon'));
    assert.equal(key('postgres://ada@DB.EXAMPLE.COM/holon'), base, 'the host name is case-insensitive');
    for (const other of ['postgres://bob@db.example.com/holon', 'postgres://ada@db2.example.com/holon', 'postgres://ada@db.example.com:6543/holon', 'postgres://ada@db.example.com/other', 'postgres://ada@db.example.com/holon?host=evil.example.com']) {
      assert.notEqual(key(other), base, other);
    }
  });

  test('reaches PostgreSQL\'s client as typed, whatever characters it holds', () => {
    const url = teamStoreFromSetting('postgres://ada@db.example.com:5432/holon?sslmode=require')!.url;
    for (const password of ['hunter2', 'p@ss:w/rd%?#&=+ é', '%41%']) {
      const config = parse(withPassword(url, password));
      assert.equal(config.password, password);
      assert.equal(config.user, 'ada');
      assert.equal(config.host, 'db.example.com');
      assert.equal(config.database, 'holon');
    }
    assert.equal(withPassword(url, undefined), url, 'no password kept: the URL as it is (the server may not ask for one)');
  });
});

describe('what a terminal and Claude Code are handed', () => {
  test('the team store\'s URL as the settings name it, never a password; on the journal, an empty value', () => {
    const team = teamStoreFromSetting('postgres://ada@DB.example.com:6543/holon?sslmode=require');
    assert.ok(team);
    assert.equal(storeBeside({ kind: 'team', url: team.url, label: team.label }), 'postgres://ada@db.example.com:6543/holon?sslmode=require');
    assert.ok(!parse(storeBeside({ kind: 'team', url: team.url, label: team.label })).password, 'the password stays in SecretStorage');
    // Empty, not absent: a HOLON_STORE the terminal inherited from a shell must name no other store than the editor's.
    assert.equal(storeBeside({ kind: 'journal' }), '');
  });
});

describe('what the server is handed', () => {
  test('the store\'s URL with its password in HOLON_STORE, or an empty HOLON_STORE for the journal', () => {
    const full = withPassword('postgres://ada@db.example.com/holon', 'hunter2');
    assert.deepEqual(serverStoreEnv(full), { HOLON_STORE: full });
    // Empty, not absent: a HOLON_STORE VS Code inherited from a shell must not move the server to another store.
    assert.deepEqual(serverStoreEnv(undefined), { HOLON_STORE: '' });
  });

  test('the server reads HOLON_STORE once and drops it, so the processes it starts never see the password', () => {
    const saved = process.env[STORE_ENV];
    try {
      const full = withPassword('postgres://ada@db.example.com/holon', 'hunter2');
      process.env[STORE_ENV] = full;
      assert.equal(resolveStore(undefined).url, full);
      assert.equal(process.env[STORE_ENV], undefined);
      process.env[STORE_ENV] = '';
      assert.equal(resolveStore(undefined).url, undefined, 'empty: the state folder\'s journal');
      process.env[STORE_ENV] = full;
      assert.equal(resolveStore('postgres://other@db.example.com/x').url, 'postgres://other@db.example.com/x', '--store wins');
      assert.equal(process.env[STORE_ENV], undefined, 'and the variable is dropped all the same');
    } finally {
      if (saved === undefined) delete process.env[STORE_ENV];
      else process.env[STORE_ENV] = saved;
    }
  });
});
