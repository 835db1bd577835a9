import type { Binding } from '../../core/local/bindings.ts';
import { bindingFor, bindingOf, bindingWhere, findBinding, removeBinding, writeBinding } from '../../core/local/bindings.ts';
import { CAP } from '../../core/kernel/capabilities.ts';
import type { CapabilityGrant, Mandate } from '../../core/kernel/model.ts';
import { grantOfEntry } from '../../core/office/personnel.ts';
import { HolonError } from '../../core/kernel/errors.ts';
import { mandateId } from '../../core/kernel/ids.ts';
import { createMandate, patchMandate } from '../../core/accounts/mandates.ts';
import { isGuarded } from '../../core/accounts/passkeys.ts';
import { decideBinding } from '../../core/accounts/workspaces.ts';
import { openTermsText, signMandateConsent } from '../../core/commerce/ap2.ts';
import type { Command, CommandContext } from '../args.ts';
import { str } from '../args.ts';
import { CHAIN_OPTIONS } from '../chainOptions.ts';
import { delegateOnChain } from '../chainAccount.ts';
import { clock, confirmAtTerminal, list, open, openExisting, print, withStore } from '../context.ts';
import { budgetJson, mandateText } from '../render.ts';

const MANDATE_OPTIONS = {
  currency: { type: 'string', help: 'currency of the mandate (default EUR)' },
  total: { type: 'string', help: 'total budget, e.g. 5.00' },
  'per-day': { type: 'string', help: 'daily limit ("none" removes it)' },
  'per-call': { type: 'string', help: 'limit for one call ("none" removes it)' },
  threshold: { type: 'string', help: 'calls whose worst case is above this wait for your approval (default 0.50)' },
  capabilities: {
    type: 'string',
    help: 'agent capabilities market.call allows, comma-separated (e.g. extraction.*,pipeline.*); other grants stay',
  },
  payees: {
    type: 'string',
    help: 'who the pay grant lets the wallet pay: CAIP-10 accounts, comma-separated, or * (any); other grants stay',
  },
  terms: {
    type: 'string',
    help: 'required: pay an x402 seller only on terms it advertises (seed 002), never plainly; optional (the default): both',
  },
  toolsets: { type: 'string', help: 'toolsets the server offers, comma-separated (default market)' },
  grant: {
    type: 'string',
    help:
      'grants to add or replace, by name: names comma-separated ' +
      '(mail.read,office.read), or JSON in personnel.yaml form ({"mail.send": {"to": ' +
      '["lead"]}} or a list of them); other grants stay',
  },
  revoke: { type: 'string', help: 'grants to take away, by name, comma-separated' },
  department: { type: 'string', help: "the grantee's department (office)" },
  regions: { type: 'string', help: 'regions data may go to, comma-separated ("any" removes the rule)' },
  retention: { type: 'string', help: 'longest data retention allowed, in days ("any" removes the rule)' },
  training: { type: 'string', help: 'allow training on inputs: yes or no (default no)' },
  expires: { type: 'string', help: 'expiry, ISO 8601 ("never" removes it)' },
  grantee: { type: 'string', help: 'name of the agent or person the mandate is for' },
  role: { type: 'string', help: "the grantee's role" },
  manager: { type: 'string', help: 'who the grantee reports to ("none" removes it)' },
  status: { type: 'string', help: 'active, suspended or revoked (edit only)' },
} as const;

/**
 * The mandate fields the flags set: only what was given. The result is a patch: `--capabilities` sets
 * the market.call grant and keeps every other grant; `--grantee` renames the grantee and keeps its role.
 */
function patchFromFlags(opts: CommandContext['opts']): Record<string, unknown> {
  // A flag given empty is refused, never read as "not given": `--capabilities ''` must not mean "any".
  const o = (k: keyof typeof MANDATE_OPTIONS): string | undefined => {
    const v = str(opts, k);
    if (v !== undefined && v.trim() === '') throw new HolonError('invalid_input', `--${k} needs a value`);
    return v;
  };
  const orNull = (v: string, none: string): string | null => (v === none ? null : v);
  const patch: Record<string, unknown> = {};
  const budget: Record<string, string | null> = {};
  const data: Record<string, unknown> = {};
  const grantee: Record<string, string | null> = {};
  for (const [key, value] of Object.entries({ currency: o('currency'), approval_threshold: o('threshold'), status: o('status') }))
    if (value) patch[key] = value;
  if (o('total')) budget['total'] = o('total') as string;
  if (o('per-day')) budget['per_day'] = orNull(o('per-day') as string, 'none');
  if (o('per-call')) budget['per_call'] = orNull(o('per-call') as string, 'none');
  const terms = o('terms');
  if (terms !== undefined && terms !== 'required' && terms !== 'optional')
    throw new HolonError('invalid_input', '--terms takes required or optional');
  const grants: CapabilityGrant[] = [
    ...(o('capabilities') ? [{ name: CAP.marketCall, params: { capabilities: list(o('capabilities')) } }] : []),
    ...(o('payees')
      ? [{ name: CAP.pay, params: { payees: list(o('payees')), ...(terms === 'required' ? { require_terms: true } : {}) } }]
      : []),
  ];
  const grant = o('grant');
  if (grant) grants.push(...grantsFromFlag(grant));
  if (grants.length > 0) patch['grants'] = grants;
  if (o('revoke')) patch['revoke'] = list(o('revoke'));
  if (o('toolsets')) patch['toolsets'] = list(o('toolsets'));
  if (o('regions')) data['regions'] = o('regions') === 'any' ? null : list(o('regions'));
  const retention = o('retention');
  if (retention) {
    const n = Number(retention);
    if (retention !== 'any' && (!Number.isInteger(n) || n < 0))
      throw new HolonError('invalid_input', '--retention takes a whole number of days, or "any"');
    data['retention_days'] = retention === 'any' ? null : n;
  }
  const training = o('training');
  if (training) {
    if (training !== 'yes' && training !== 'no') throw new HolonError('invalid_input', '--training takes yes or no');
    data['training'] = training === 'yes';
  }
  const expires = o('expires');
  if (expires) patch['expires_at'] = orNull(expires, 'never');
  if (o('grantee')) grantee['name'] = o('grantee') as string;
  if (o('role')) grantee['role'] = o('role') as string;
  if (o('department')) grantee['department'] = orNull(o('department') as string, 'none');
  if (o('manager')) grantee['manager'] = orNull(o('manager') as string, 'none');
  if (Object.keys(budget).length > 0) patch['budget'] = budget;
  if (Object.keys(data).length > 0) patch['data'] = data;
  if (Object.keys(grantee).length > 0) patch['grantee'] = grantee;
  return patch;
}

/**
 * `--terms` alone changes only the pay grant's `require_terms`, keeping who it may pay (with `--payees`, the
 * grant is set whole above). There must be a pay grant to change: one made here from nothing would pay anyone.
 */
function withTermsFlag(
  opts: CommandContext['opts'],
  patch: Record<string, unknown>,
  current: Mandate | undefined,
): Record<string, unknown> {
  const terms = str(opts, 'terms');
  if (terms === undefined || str(opts, 'payees') !== undefined) return patch;
  const pay = current?.capabilities.find((c) => c.name === CAP.pay);
  if (!pay) throw new HolonError('invalid_input', '--terms changes the pay grant, and this mandate has none: give --payees too');
  const { require_terms: _dropped, ...params } = pay.params ?? {};
  const changed = { name: CAP.pay, params: terms === 'required' ? { ...params, require_terms: true } : params };
  return { ...patch, grants: [...((patch['grants'] as CapabilityGrant[] | undefined) ?? []), changed] };
}

/** `--grant`: bare names, comma-separated, or JSON in personnel.yaml form (one entry or a list). */
function grantsFromFlag(text: string): CapabilityGrant[] {
  const t = text.trim();
  if (!t.startsWith('{') && !t.startsWith('[')) return (list(t) ?? []).map((name) => grantOfEntry(name));
  let parsed: unknown;
  try {
    parsed = JSON.parse(t);
  } catch {
    throw new HolonError('invalid_input', '--grant is not valid JSON');
  }
  const entries = Array.isArray(parsed) ? parsed : [parsed];
  return entries.flatMap((e) => {
    if (typeof e === 'string') return [grantOfEntry(e)];
    if (typeof e !== 'object' || e === null) throw new HolonError('invalid_input', '--grant takes names or {name: parameters} objects');
    // One object may carry several grants, like a personnel.yaml mapping.
    return Object.entries(e as Record<string, unknown>).map(([name, params]) => grantOfEntry({ [name]: params }));
  });
}

/** A new mandate's input from the same flags: a patch of the defaults. */
function inputFromFlags(opts: CommandContext['opts']): Record<string, unknown> {
  if (opts['status']) throw new HolonError('invalid_input', '--status is for edit');
  if (opts['terms'] !== undefined && opts['payees'] === undefined)
    throw new HolonError('invalid_input', '--terms sets the pay grant: give --payees too (a pay grant without payees would pay anyone)');
  const { grants, ...rest } = patchFromFlags(opts);
  return grants ? { ...rest, capabilities: grants } : rest;
}

const BIND_ACTIONS = ['bind', 'unbind', 'binding'];

/** A binding in words, as `binding` and `bind` print it. */
function bindingText(b: Binding): string {
  return (
    `${b.workspace} is bound to ${b.mandate} on ${bindingWhere(b)} (since ${b.bound_at}): a Holon ` +
    `server started in it, or in a folder inside it, serves only that mandate`
  );
}

/**
 * `bind`, `unbind` and `binding`: which mandate a server started in a workspace serves (core/local/bindings.ts).
 * Binding and unbinding need a human: at a terminal (the one process an agent that only edits files can
 * have started is a client's server, from the config file it edited, and that process has no terminal),
 * or, for binding in a state a passkey guards, on the passkey's page (see bindAction).
 */
async function bindingAction(ctx: CommandContext, action: string, id: string | undefined): Promise<number> {
  const given = Object.keys(MANDATE_OPTIONS).filter((k) => ctx.opts[k] !== undefined);
  if (given.length > 0)
    throw new HolonError('invalid_input', `holon mandate ${action} takes only --workspace, --state and --store, not --${given[0]}`);
  const workspace = str(ctx.opts, 'workspace') ?? process.cwd();
  if (action === 'binding') {
    if (id !== undefined) throw new HolonError('invalid_input', 'usage: holon mandate binding [--workspace DIR]');
    const b = findBinding(workspace);
    return print(
      ctx,
      b ?? null,
      b ? bindingText(b) : `${workspace} is not bound: a Holon server started in it serves the mandate its command line names`,
    );
  }
  if (action === 'unbind') {
    if (id !== undefined) throw new HolonError('invalid_input', 'usage: holon mandate unbind [--workspace DIR]');
    let current: Binding | 'damaged' | undefined;
    try {
      current = bindingOf(workspace);
    } catch (err) {
      // Unbinding is how a human clears a binding that cannot be trusted.
      if (!HolonError.is(err, 'conflict')) throw err;
      current = 'damaged';
    }
    if (!current) return print(ctx, null, `${workspace} is not bound; nothing was changed`);
    const what = current === 'damaged' ? `the damaged binding of ${workspace}` : `${current.workspace} from ${current.mandate}`;
    if (
      !(await confirmAtTerminal(
        `Unbind ${what}? A server started in it will then serve the mandate its command line names. [y/N] `,
        'unbinding a workspace',
      ))
    ) {
      ctx.out('Not changed.');
      return 1;
    }
    const removed = removeBinding(workspace);
    return print(ctx, removed?.binding ?? null, `Unbound ${what}`);
  }
  if (id === undefined) throw new HolonError('invalid_input', 'usage: holon mandate bind ACCOUNT/NAME [--workspace DIR]');
  return bindAction(ctx, workspace, id);
}

/** What the terminal asks before binding, in a state no passkey guards. */
function bindQuestion(binding: Binding): string {
  let now: string;
  try {
    const before = bindingOf(binding.workspace);
    now = before ? ` (it is bound to ${before.mandate} on ${bindingWhere(before)} now)` : '';
  } catch (err) {
    // A damaged binding is what a human replaces by binding again.
    if (!HolonError.is(err, 'conflict')) throw err;
    now = ' (its binding now is damaged)';
  }
  return (
    `Bind ${binding.workspace} to ${binding.mandate} on ${bindingWhere(binding)}${now}? A Holon ` +
    `server started in it will serve only this mandate. [y/N] `
  );
}

/**
 * `bind`. In a state the human's passkey guards, the binding is first written to the journal as their
 * decision, on the passkey's page (the store asks it): a server counts a binding file only when the
 * journal holds it (accounts/workspaces.ts), and nothing typed at this terminal decides. Otherwise a
 * human at a terminal says yes, as before.
 */
async function bindAction(ctx: CommandContext, workspace: string, id: string): Promise<number> {
  const binding = bindingFor({ workspace, state: ctx.stateDir, store: ctx.store ?? null, mandate: mandateId(id) }, clock);
  const decided = await withStore(openExisting(ctx), async (store) => {
    if (!store.state.mandates[id]) throw new HolonError('not_found', `no mandate "${id}" on ${bindingWhere(binding)}; nothing was bound`);
    if (!isGuarded(store.state)) return false;
    await decideBinding(store, binding.workspace, binding.mandate);
    return true;
  });
  if (!decided && !(await confirmAtTerminal(bindQuestion(binding), 'binding a workspace'))) {
    ctx.out('Not changed.');
    return 1;
  }
  writeBinding(binding);
  return print(ctx, binding, `Bound: ${bindingText(binding)}`);
}

/**
 * Signs the mandate's open AP2 mandate with the human's key (this is the human's own command), and says
 * what merchants will see of it.
 */
async function consentText(stateDir: string, m: Mandate): Promise<string> {
  const open = await signMandateConsent(stateDir, m, clock.now());
  if (!open) return '';
  return `\nMerchants will see this (its AP2 open mandate, signed with your key ${open.key}): ${openTermsText(open.terms)}`;
}

const mandateCmd: Command = {
  name: 'mandate',
  usage: 'mandate create|list|show|edit [ID] [options] | mandate bind ID [--workspace DIR] | mandate unbind|binding [--workspace DIR]',
  summary:
    'Creates, lists, shows and edits mandates. Only a human at this command (or the ' +
    'editor) changes a mandate; an edit changes only what its flags name. bind makes ' +
    'the workspace (default: the current folder) serve only this mandate, state and ' +
    'store to a Holon server started in it; unbind undoes it (both ask at a terminal); binding shows it.',
  options: {
    ...MANDATE_OPTIONS,
    ...CHAIN_OPTIONS,
    workspace: { type: 'string', help: 'bind, unbind, binding: the workspace folder (default: the current folder)' },
  },
  positionals: [1, 2],
  async run(ctx) {
    const [action, id] = ctx.args;
    if (action !== undefined && BIND_ACTIONS.includes(action)) return bindingAction(ctx, action, id);
    if (ctx.opts['workspace'] !== undefined)
      throw new HolonError('invalid_input', '--workspace is for holon mandate bind, unbind and binding');
    if (action === 'list') {
      if (id !== undefined) throw new HolonError('invalid_input', 'usage: holon mandate list');
      return withStore(openExisting(ctx), async (store) => {
        const all = Object.values(store.state.mandates);
        return print(
          ctx,
          all,
          all.length === 0
            ? 'No mandates yet: holon mandate create ACCOUNT/NAME'
            : all.map((m) => mandateText(m, store.state, clock.now())).join('\n'),
        );
      });
    }
    if (!id) throw new HolonError('invalid_input', `usage: holon mandate ${action ?? 'create'} ACCOUNT/NAME`);
    if (action === 'show') {
      return withStore(openExisting(ctx), async (store) => {
        const m = store.state.mandates[id];
        if (!m) throw new HolonError('not_found', `no mandate "${id}"`);
        return print(ctx, { ...m, budget_view: budgetJson(m, store.state, clock.now()) }, mandateText(m, store.state, clock.now()));
      });
    }
    if (action === 'create') {
      const input = inputFromFlags(ctx.opts);
      return withStore(
        open(ctx),
        async (store) => {
          const m = await createMandate(store, clock, id, input);
          const held = await delegateOnChain(ctx, store, id);
          return print(ctx, m, `Created ${mandateText(m, store.state, clock.now())}${await consentText(ctx.stateDir, m)}${held}`);
        },
        true,
      );
    }
    if (action === 'edit') {
      const patch = patchFromFlags(ctx.opts);
      if (Object.keys(patch).length === 0 && str(ctx.opts, 'terms') === undefined)
        throw new HolonError('invalid_input', 'holon mandate edit needs at least one change (see --help)');
      return withStore(
        openExisting(ctx),
        async (store) => {
          const m = await patchMandate(store, clock, id, withTermsFlag(ctx.opts, patch, store.state.mandates[id]));
          // An active mandate's new limits are signed again; a suspended or revoked one's delegation is disabled.
          const held = await delegateOnChain(ctx, store, id);
          return print(ctx, m, `Updated ${mandateText(m, store.state, clock.now())}${await consentText(ctx.stateDir, m)}${held}`);
        },
        true,
      );
    }
    throw new HolonError('invalid_input', `unknown action "${action}"; use create, list, show, edit, bind, unbind or binding`);
  },
};

export const commands: Command[] = [mandateCmd];
