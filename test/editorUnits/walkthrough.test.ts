/**
 * The walkthrough package.json contributes: each step has its media, a command to run, and a done-when
 * event VS Code can see — a context key the extension sets, or a command it contributes.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { COMMANDS, CONTEXT_KEYS, WALKTHROUGH, WALKTHROUGH_STEPS } from '../../src/editor/commandIds.ts';
import { addPasskey, registrationSubject } from '../../src/core/accounts/passkeys.ts';
import { challengeOf } from '../../src/core/passkey/challenge.ts';
import { stateContextKeys } from '../../src/editor/stateKeys.ts';
import { withWorld } from '../core/fixtures.ts';
import { softPasskey } from '../helpers/softPasskey.ts';
import { ROOT } from '../helpers.ts';

interface Step {
  id: string;
  title: string;
  description: string;
  media: { markdown?: string; svg?: string; image?: string; altText?: string };
  completionEvents: string[];
}

/** The VS Code commands a step may link to. */
const VSCODE_COMMANDS = new Set(['workbench.action.terminal.new']);

const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  publisher: string;
  name: string;
  contributes: { walkthroughs: { id: string; steps: Step[] }[]; commands: { command: string }[] };
};

test('passkey → fund → mandate → connect → first call → approve → receipt, each with its media, command and done-when event', () => {
  const [walkthrough] = manifest.contributes.walkthroughs;
  assert.ok(walkthrough);
  assert.equal(`${manifest.publisher}.${manifest.name}#${walkthrough.id}`, WALKTHROUGH, 'Holon: Get Started opens this walkthrough');
  assert.deepEqual(walkthrough.steps.map((s) => s.id), ['passkey', 'fund', 'mandate', 'connect', 'firstCall', 'approve', 'receipt']);
  const contributed = new Set(manifest.contributes.commands.map((c) => c.command));
  const keys = new Set<string>(Object.values(CONTEXT_KEYS));
  for (const step of walkthrough.steps) {
    const media = step.media.markdown ?? step.media.svg;
    assert.ok(media && fs.existsSync(path.join(ROOT, media)), `${step.id}: its media ${media} is in the package's media/`);
    assert.match(media, /^media\//);
    const links = [...step.description.matchAll(/\(command:([\w.]+)\)/g)].map((m) => m[1] ?? '');
    assert.ok(links.length > 0, `${step.id} has a command to run`);
    // Besides Holon's own commands, a step may open a terminal (where `holon` is this workspace's).
    for (const c of links) assert.ok((contributed.has(c) && Object.values(COMMANDS).includes(c as never)) || VSCODE_COMMANDS.has(c), `${step.id}: ${c} is a Holon command`);
    assert.ok(step.completionEvents.length > 0, `${step.id} has a done-when event`);
    for (const e of step.completionEvents) {
      const [kind, what = ''] = e.split(/:(.*)/s);
      if (kind === 'onContext') assert.ok(keys.has(what), `${step.id}: ${what} is a context key the extension sets`);
      else if (kind === 'onCommand') assert.ok(contributed.has(what), `${step.id}: ${what} is a contributed command`);
      else assert.fail(`${step.id}: ${e} is neither onContext nor onCommand`);
    }
  }
});

test('each step that a context key ticks is the step the extension marks done when that key is true', () => {
  const [walkthrough] = manifest.contributes.walkthroughs;
  assert.ok(walkthrough);
  const fromManifest: Record<string, string> = {};
  for (const step of walkthrough.steps)
    for (const e of step.completionEvents) if (e.startsWith('onContext:')) fromManifest[e.slice('onContext:'.length)] = step.id;
  assert.deepEqual(fromManifest, WALKTHROUGH_STEPS);
});

test("the passkey step: its button adds a passkey, its page says what the passkey decides, and it is done once the state has one", async () => {
  const [walkthrough] = manifest.contributes.walkthroughs;
  const first = walkthrough?.steps[0];
  assert.equal(first?.id, 'passkey', 'the first step');
  assert.match(first.description, /\(command:holon\.addPasskey\)/);
  assert.deepEqual(first.completionEvents, [`onContext:${CONTEXT_KEYS.hasPasskey}`]);
  const page = fs.readFileSync(path.join(ROOT, first.media.markdown ?? ''), 'utf8');
  for (const said of [/approv/i, /agent\s+with a terminal cannot approve/i, /browser/i, /optional/i, /holon passkey add/])
    assert.match(page, said);
  await withWorld(async (w) => {
    assert.equal(stateContextKeys(w.store.state)[CONTEXT_KEYS.hasPasskey], false, 'no passkey yet: the step is not done');
    const pk = softPasskey();
    await addPasskey(w.store, pk.credential, 'laptop', pk.assert(challengeOf(registrationSubject(pk.credential))));
    const keys = stateContextKeys(w.store.state);
    assert.equal(keys[CONTEXT_KEYS.hasPasskey], true, 'a passkey registered: the step is done');
    assert.equal(keys[CONTEXT_KEYS.hasFunds], true, "the demo world's funds still tick theirs");
  });
});
