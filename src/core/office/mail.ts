/**
 * Mail between colleagues (seed 004): threads per grantee in the journal. The sender is written by the
 * office from the sender's mandate, so nobody can mail as someone else. A reply to another agent's mail
 * is delivered to that agent's inbox as new mail that wakes it — except past three automatic hops, when
 * it is delivered without waking (the loop guard), so two agents cannot keep waking each other.
 */
import { CAP } from '../kernel/capabilities.ts';
import type { Clock } from '../kernel/deps.ts';
import { denial } from '../kernel/denials.ts';
import { HolonError } from '../kernel/errors.ts';
import type { MandatesFields } from '../accounts/mandates.ts';
import { mandateOf } from '../accounts/mandates.ts';
import type { EventStore, NewEvent } from '../store/store.ts';
import { allowedTargets, colleagueMandate, grantsAllow, grantsNow } from './colleagues.ts';
import type { MailState, MailThread, OfficeFields } from './slice.ts';
import { officeEvent } from './slice.ts';

/** Automatic reply notifications past this many hops are delivered without waking anyone. */
export const MAX_WAKING_HOPS = 3;

type Office = MandatesFields & OfficeFields;

function newThread(
  s: OfficeFields,
  fields: Omit<MailThread, 'id' | 'number' | 'state' | 'comments' | 'created_at' | 'updated_at'>,
  at: string,
): MailThread {
  const inbox = `${fields.office}/${fields.to}`;
  const number = (s.office.numbers[inbox] ?? 0) + 1;
  return { ...fields, id: `${inbox}#${number}`, number, state: 'new', comments: [], created_at: at, updated_at: at };
}

/** Starts a thread in a colleague's inbox. The recipient must be hired and inside `mail.send`'s `to`. */
export function sendMail(
  store: EventStore<Office>,
  clock: Clock,
  r: { mandate: string; to: string; subject: string; body: string },
): Promise<MailThread> {
  return store.transact((s) => {
    const sender = mandateOf(s, r.mandate);
    const now = clock.now();
    const grants = grantsNow(s, sender, CAP.mailSend, now);
    if (!grantsAllow(grants, 'to', r.to)) {
      const d = denial('capability_scope', { capability: CAP.mailSend, target: r.to, allowed: allowedTargets(grants, 'to') });
      throw new HolonError('denied', `mail.send does not cover ${r.to}`, { to: r.to }, [d]);
    }
    const recipient = colleagueMandate(s, r.to, sender.account);
    if (!recipient || recipient.status !== 'active') throw new HolonError('not_found', `"${r.to}" is not a hired colleague`, { to: r.to });
    if (r.to === sender.grantee.slug) throw new HolonError('invalid_input', 'mail goes to a colleague, not to yourself');
    const thread = newThread(
      s,
      {
        office: sender.account,
        to: r.to,
        from: sender.grantee.slug,
        from_mandate: sender.id,
        subject: r.subject,
        body: r.body,
        hops: 0,
        notifies: null,
        woke: true,
      },
      new Date(now).toISOString(),
    );
    return { events: [officeEvent('mail.sent', { thread })], result: thread };
  });
}

/** The caller's inbox, newest first: everything not closed by default. Read from the inbox's index, never every thread. */
export function inbox(s: Office, mandate: string, state: MailState | 'open' = 'open'): MailThread[] {
  const me = mandateOf(s, mandate);
  const slug = me.grantee.slug;
  const box = s.mail_index[me.account]?.[slug];
  const ids = (state === 'closed' ? box?.closed : box?.open) ?? [];
  const out: MailThread[] = [];
  for (const id of ids) {
    const t = s.office.threads[id];
    if (t && t.to === slug && t.office === me.account && (state === 'open' ? t.state !== 'closed' : t.state === state)) out.push(t);
  }
  return out.sort((a, b) => (a.updated_at > b.updated_at ? -1 : a.updated_at < b.updated_at ? 1 : b.number - a.number));
}

/** How many threads of a colleague's inbox are open (not closed): counted by its index. */
export function openMailCount(s: OfficeFields, office: string, slug: string): number {
  return s.mail_index[office]?.[slug]?.open.length ?? 0;
}

function threadIn(s: Office, mandate: string, number: number): MailThread {
  const me = mandateOf(s, mandate);
  const t = s.office.threads[`${me.account}/${me.grantee.slug}#${number}`];
  if (!t) throw new HolonError('not_found', `no mail #${number} in your inbox`, { number });
  return t;
}

/** Reads a thread of the caller's inbox; a new one becomes `working`. */
export function readMail(store: EventStore<Office>, mandate: string, number: number): Promise<MailThread> {
  return store.transact((s) => {
    const t = threadIn(s, mandate, number);
    const events = t.state === 'new' ? [officeEvent('mail.opened', { thread: t.id })] : [];
    return { events, result: { ...structuredClone(t), state: t.state === 'new' ? 'working' : t.state } };
  });
}

/**
 * Replies on a thread of the caller's inbox. When another agent wrote it, the reply also goes to that
 * agent's inbox as new mail, one hop further; past MAX_WAKING_HOPS it does not wake them.
 */
export function replyMail(
  store: EventStore<Office>,
  clock: Clock,
  r: { mandate: string; number: number; body: string },
): Promise<{ thread: MailThread; delivered: MailThread | null }> {
  return store.transact((s) => {
    const t = threadIn(s, r.mandate, r.number);
    if (t.state === 'closed') throw new HolonError('conflict', `mail #${r.number} is closed`, { number: r.number });
    const me = mandateOf(s, r.mandate);
    const at = new Date(clock.now()).toISOString();
    const events: NewEvent[] = [];
    let delivered: MailThread | null = null;
    const back = t.from_mandate ? colleagueMandate(s, t.from, me.account) : undefined;
    if (back && back.status === 'active' && t.from !== me.grantee.slug) {
      // Each reply on one thread is a hop too: replying again and again to one mail cannot keep waking its sender.
      const hops = t.hops + 1 + t.comments.filter((c) => c.from === me.grantee.slug).length;
      delivered = newThread(
        s,
        {
          office: me.account,
          to: t.from,
          from: me.grantee.slug,
          from_mandate: me.id,
          subject: t.subject.startsWith('Re: ') ? t.subject : `Re: ${t.subject}`.slice(0, 200),
          body: r.body,
          hops,
          notifies: t.id,
          woke: hops <= MAX_WAKING_HOPS,
        },
        at,
      );
      events.push(officeEvent('mail.sent', { thread: delivered }));
      if (!delivered.woke) events.push(officeEvent('mail.loop_guard', { thread: delivered.id, hops }));
    }
    const comment = { from: me.grantee.slug, body: r.body, at };
    events.unshift(officeEvent('mail.replied', { thread: t.id, comment, delivered: delivered?.id ?? null }));
    return {
      events,
      result: { thread: { ...structuredClone(t), state: 'replied' as const, comments: [...t.comments, comment] }, delivered },
    };
  });
}

/** Closes a thread of the caller's inbox. */
export function closeMail(store: EventStore<Office>, r: { mandate: string; number: number }): Promise<MailThread> {
  return store.transact((s) => {
    const t = threadIn(s, r.mandate, r.number);
    return {
      events: t.state === 'closed' ? [] : [officeEvent('mail.closed', { thread: t.id })],
      result: { ...structuredClone(t), state: 'closed' as const },
    };
  });
}
