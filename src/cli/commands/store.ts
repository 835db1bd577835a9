import { HolonError } from '../../core/kernel/errors.ts';
import { initTeamStore, migrateToTeamStore } from '../../core/teamAdmin.ts';
import { lazySigner } from '../../core/store/keys.ts';
import { thisProcess } from '../../core/store/owner.ts';
import { redactUrl } from '../../core/store/url.ts';
import type { Command } from '../args.ts';
import { str } from '../args.ts';
import { logger, print } from '../context.ts';

const storeCmd: Command = {
  name: 'store',
  usage: 'store init --url ADMIN_URL [--member ROLE]',
  summary:
    "Sets up a PostgreSQL team store, connected as the database's owner: the events " +
    'table, triggers that refuse to update, delete or truncate it and keep every row ' +
    'linked to the one before, and with --member a role that may only read and append ' +
    'events. On an empty store, this installation becomes its root: the owner of ' +
    'every account. Safe to run again; it brings a table of an earlier version up to date.',
  options: {
    url: { type: 'string', help: 'the database, as its owner: postgres://owner:password@host:port/database' },
    member: { type: 'string', help: 'a role for the team to use: created if missing, left only SELECT and INSERT on the events' },
  },
  positionals: [1, 1],
  async run(ctx) {
    const url = str(ctx.opts, 'url');
    if (ctx.args[0] !== 'init' || url === undefined) throw new HolonError('invalid_input', `usage: holon ${storeCmd.usage}`);
    const signer = lazySigner(ctx.stateDir);
    const r = await initTeamStore(url, { member: str(ctx.opts, 'member'), root: { signer, machine: thisProcess().host, logger } });
    const lines = [
      `${r.created ? 'Created' : 'Found'} ${r.table}. The trigger ${r.guard} refuses ` +
        `UPDATE, DELETE and TRUNCATE on it for every role (its owner can still drop the ` +
        `trigger), and every row must follow the one before it.`,
      r.root === signer.publicKey
        ? `This installation (${r.root}, ${thisProcess().host}) owns the store: it alone ` +
          `funds accounts, sets mandates, rates and agents, and says who else may (holon team add).`
        : `The store is owned by ${r.root ?? 'nobody yet'}; only it, and whoever it makes ` +
          `an owner, may fund accounts, set mandates, rates and agents.`,
    ];
    if (r.member) {
      lines.push(
        `${r.member.created ? 'Created' : 'Kept'} the role ${r.member.role}: it may SELECT and INSERT events, nothing else.`,
        `Give it a password (in psql: \\password ${r.member.role}) or admit it in pg_hba.conf; each machine then uses`,
        `  --store ${r.member.url.replace(`${r.member.role}@`, `${r.member.role}:PASSWORD@`)}   (or HOLON_STORE)`,
      );
    }
    return print(ctx, r, lines.join('\n'));
  },
};

const migrateCmd: Command = {
  name: 'migrate',
  usage: 'migrate --to URL [--state DIR]',
  summary:
    "Copies the state folder's journal, verified first, into an empty PostgreSQL team " +
    'store, all or nothing, and checks that the database folds to the same state. The ' +
    'journal is left as it was.',
  options: { to: { type: 'string', help: 'the empty database: postgres://user:password@host:port/database' } },
  positionals: [0, 0],
  async run(ctx) {
    const url = str(ctx.opts, 'to');
    if (url === undefined) throw new HolonError('invalid_input', `usage: holon ${migrateCmd.usage}`);
    const r = await migrateToTeamStore(ctx.stateDir, url, { logger });
    return print(
      ctx,
      r,
      [
        `Copied ${r.events} events (head ${r.head.slice(0, 16)}…, signed through event ${r.signed_through}); the ` +
          `database folds to the same state.`,
        `The journal in ${ctx.stateDir} is left as it was and is no longer the store: ` +
          `from now on use --store ${redactUrl(url)} (or HOLON_STORE).`,
      ].join('\n'),
    );
  },
};

export const commands: Command[] = [storeCmd, migrateCmd];
