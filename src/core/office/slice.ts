/**
 * The office (seed 004): the workspace's mandates are its colleagues. This slice folds what happens
 * between them — mail threads per grantee, capability windows a human opened, published artifacts, pull
 * requests and personnel proposals — from the journal, like every other module.
 */
import type { CapabilityGrant } from '../kernel/model.ts';
import type { Slice } from '../store/slice.ts';
import { eventsOf } from '../store/slice.ts';
import type { Dict } from '../kernel/util.ts';
import { dict, toDict } from '../kernel/util.ts';
import type { Personnel, PersonnelChange } from './personnel.ts';

export type MailState = 'new' | 'working' | 'replied' | 'closed';
export const MAIL_STATES: readonly MailState[] = ['new', 'working', 'replied', 'closed'];

export interface MailComment {
  from: string;
  body: string;
  at: string;
}

/** One thread in one grantee's inbox. `from` is written by the office from the sender's mandate, never by the sender. */
export interface MailThread {
  /** `<office>/<recipient slug>#<number>`. */
  id: string;
  /** The office (account) the thread is in. */
  office: string;
  to: string;
  number: number;
  from: string;
  /** The sender's mandate; null for mail a human sent. */
  from_mandate: string | null;
  subject: string;
  body: string;
  state: MailState;
  comments: MailComment[];
  /** How many automatic reply notifications led here (0 for mail an agent or human wrote). */
  hops: number;
  /** The thread whose reply this notifies about, if it is a notification. */
  notifies: string | null;
  /** False when the loop guard delivered it without waking the recipient. */
  woke: boolean;
  created_at: string;
  updated_at: string;
}

/** A capability granted for a while by a human's approval. */
export interface CapabilityWindow {
  approval: string;
  mandate: string;
  capability: CapabilityGrant;
  opens_at: string;
  closes_at: string;
}

/** A published deliverable: its files are in the workspace, only this record is in the journal. */
export interface Artifact {
  id: string;
  mandate: string;
  slug: string;
  title: string;
  summary: string | null;
  filename: string;
  kind: string;
  /** The folder, relative to the workspace. */
  path: string;
  bytes: number;
  sha256: string;
  /** The git commit that holds it, when the workspace is a repository. */
  commit: string | null;
  created_at: string;
}

/** A pull request an agent opened; the human merges it in their forge, never the agent. */
export interface PullRequest {
  id: string;
  forge: string;
  repo: string;
  number: number;
  title: string;
  head: string;
  base: string;
  author: string;
  mandate: string;
  url: string;
  created_at: string;
}

/** A proposed hire or change of a personnel file; nothing changes until a human merges it. */
export interface Proposal {
  id: string;
  kind: 'hire' | 'change';
  /** The agent the file is for. */
  slug: string;
  /** The mandate the file is (or, for a hire, will be). */
  target: string;
  /** Who proposed it: the proposer's mandate and slug. */
  proposer: { mandate: string; slug: string };
  title: string;
  reason: string;
  body: string;
  before: Personnel | null;
  after: Personnel;
  change: PersonnelChange;
  diff: string;
  diff_sha256: string;
  /** When the file the diff was made against was last changed (null for a hire); `before` is that file. */
  base_updated_at: string | null;
  /** A hire's charter, kept with the proposal, never ledgered. */
  charter: string | null;
  approval: string;
  status: 'open' | 'merged' | 'rejected';
  created_at: string;
  decided_at?: string;
}

/** One inbox's threads by whether they are open: ids in the order they arrived or moved there. */
export interface InboxIndex {
  /** Every thread not closed: what `mail_inbox` lists by default, and its count what `office_overview` says. */
  open: string[];
  closed: string[];
}

/** The office's part of the state. */
export interface OfficeFields {
  /** Office → grantee slug → the inbox's threads by openness: what reads an inbox without scanning every thread. */
  mail_index: Dict<Dict<InboxIndex>>;
  office: {
    threads: Dict<MailThread>;
    /** The last thread number of each inbox (`<office>/<slug>`). */
    numbers: Dict<number>;
    windows: CapabilityWindow[];
    artifacts: Dict<Artifact>;
    prs: Dict<PullRequest>;
    proposals: Dict<Proposal>;
  };
}

/** The office's events; their names are the seed's ledger names. */
export interface OfficeEvents {
  'mail.sent': { thread: MailThread };
  /** A reply notification past the hop limit: delivered, nobody woken. */
  'mail.loop_guard': { thread: string; hops: number };
  'mail.opened': { thread: string };
  'mail.replied': { thread: string; comment: MailComment; delivered: string | null };
  'mail.closed': { thread: string };
  'capability.window.opened': CapabilityWindow;
  /** A human closed a window before its end. */
  'capability.window.closed': { approval: string; at: string };
  'artifact.published': { artifact: Artifact };
  'forge.pr.opened': { pr: PullRequest };
  'policy.proposed': { proposal: Proposal };
  'policy.merged': { id: string; mandate: string };
  'policy.rejected': { id: string };
}

export const officeEvent = eventsOf<OfficeEvents>();

/** The index entry of the inbox a thread is in, created empty. */
function inboxOf(s: OfficeFields, t: Pick<MailThread, 'office' | 'to'>): InboxIndex {
  const office = (s.mail_index[t.office] ??= dict());
  return (office[t.to] ??= { open: [], closed: [] });
}

/** Files thread `t` under its inbox, open or closed as it is now (one that names no inbox is in none). */
function fileThread(s: OfficeFields, t: MailThread): void {
  if (typeof t.office !== 'string' || typeof t.to !== 'string') return;
  const box = inboxOf(s, t);
  (t.state === 'closed' ? box.closed : box.open).push(t.id);
}

/** Takes thread `t` out of its inbox's index, as it was filed. */
function unfileThread(s: OfficeFields, t: MailThread): void {
  const list = s.mail_index[t.office]?.[t.to]?.[t.state === 'closed' ? 'closed' : 'open'];
  const i = list ? list.lastIndexOf(t.id) : -1;
  if (list && i >= 0) list.splice(i, 1);
}

/** Changes a thread's state, moving it between its inbox's open and closed threads when that changes. */
function setState(s: OfficeFields, t: MailThread, state: MailState): void {
  const moves = (t.state === 'closed') !== (state === 'closed');
  if (moves) unfileThread(s, t);
  t.state = state;
  if (moves) fileThread(s, t);
}

/** A human's decision on a proposal, as the fold records it. */
function decideProposal(s: OfficeFields, id: string, status: 'merged' | 'rejected', at: string): void {
  const p = s.office.proposals[id];
  if (!p) return;
  p.status = status;
  p.decided_at = at;
}

export const officeSlice: Slice<OfficeFields, OfficeEvents> = {
  initial: () => ({
    office: { threads: dict(), numbers: dict(), windows: [], artifacts: dict(), prs: dict(), proposals: dict() },
    mail_index: dict(),
  }),
  on: {
    'mail.sent': (s, d) => {
      const replaced = s.office.threads[d.thread.id];
      if (replaced) unfileThread(s, replaced);
      s.office.threads[d.thread.id] = structuredClone(d.thread);
      fileThread(s, s.office.threads[d.thread.id] as MailThread);
      const inbox = `${d.thread.office}/${d.thread.to}`;
      s.office.numbers[inbox] = Math.max(s.office.numbers[inbox] ?? 0, d.thread.number);
    },
    'mail.opened': (s, d, e) => {
      const t = s.office.threads[d.thread];
      if (t && t.state === 'new') {
        setState(s, t, 'working');
        t.updated_at = e.time;
      }
    },
    'mail.replied': (s, d, e) => {
      const t = s.office.threads[d.thread];
      if (!t) return;
      t.comments.push(structuredClone(d.comment));
      setState(s, t, 'replied');
      t.updated_at = e.time;
    },
    'mail.closed': (s, d, e) => {
      const t = s.office.threads[d.thread];
      if (!t) return;
      setState(s, t, 'closed');
      t.updated_at = e.time;
    },
    'capability.window.opened': (s, d) => {
      s.office.windows.push(structuredClone(d));
    },
    'capability.window.closed': (s, d) => {
      const w = s.office.windows.find((x) => x.approval === d.approval);
      if (w && d.at < w.closes_at) w.closes_at = d.at;
    },
    'artifact.published': (s, d) => {
      s.office.artifacts[d.artifact.id] = structuredClone(d.artifact);
    },
    'forge.pr.opened': (s, d) => {
      s.office.prs[d.pr.id] = structuredClone(d.pr);
    },
    'policy.proposed': (s, d) => {
      s.office.proposals[d.proposal.id] = structuredClone(d.proposal);
    },
    'policy.merged': (s, d, e) => decideProposal(s, d.id, 'merged', e.time),
    'policy.rejected': (s, d, e) => decideProposal(s, d.id, 'rejected', e.time),
  },
  revive: (s) => {
    const o = s.office ?? officeSlice.initial().office;
    s.office = {
      threads: toDict(o.threads),
      numbers: toDict(o.numbers),
      windows: o.windows ?? [],
      artifacts: toDict(o.artifacts),
      prs: toDict(o.prs),
      proposals: toDict(o.proposals),
    };
    s.mail_index = toDict(s.mail_index, (office) => toDict(office));
  },
};
