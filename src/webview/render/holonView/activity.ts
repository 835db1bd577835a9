// The news in the Holon view, one card each: calls refused lately, new mail, payments on a chain and
// artifacts. None decides anything; a card at most opens something for the human to read.
import type { ArtifactRow, ChainPaymentRow, MailRow, RefusalRow } from '../../protocol/holonView.ts';
import { button, h, time } from '../dom.ts';
import type { ViewContext } from './context.ts';

/** A refused call: the agent was told, and the human would otherwise never hear of it. */
export function renderRefusal(doc: Document, r: RefusalRow, view: ViewContext): HTMLElement {
  return h(
    doc,
    'article',
    { class: 'card refusal-card', 'data-testid': `refusal-${r.id}` },
    h(doc, 'p', { class: 'card-kind' }, 'Denied · ', time(doc, r.at, undefined, r.when)),
    h(doc, 'p', { class: 'card-title mono', 'data-testid': `refusal-what-${r.id}` }, r.what),
    h(doc, 'p', { class: 'note muted' }, 'under ', h(doc, 'span', { class: 'mono', 'data-testid': `refusal-mandate-${r.id}` }, r.mandate)),
    h(doc, 'ul', { class: 'reasons', 'data-testid': `refusal-reasons-${r.id}` }, ...r.reasons.map((reason) => h(doc, 'li', {}, reason))),
    // Most refusals are the mandate saying no: the way to change that is one click away.
    h(
      doc,
      'div',
      { class: 'actions' },
      button(doc, 'Edit Mandate', `refusal-edit-${r.id}`, () => view.post({ type: 'run', command: 'editMandate' }), { secondary: true }),
    ),
  );
}

/** New mail between the office's agents; one delivered past the loop guard says so. */
export function renderMail(doc: Document, m: MailRow): HTMLElement {
  return h(
    doc,
    'article',
    { class: 'card', 'data-testid': `mail-${m.id}` },
    h(
      doc,
      'p',
      { class: 'card-kind' },
      `${m.from} → ${m.to}`,
      !m.woke && ' ',
      !m.woke && h(doc, 'span', { class: 'pill', title: 'Past 3 automatic replies: delivered without waking' }, 'loop guard'),
    ),
    h(doc, 'p', { class: 'card-title' }, m.subject),
    time(doc, m.at),
  );
}

/** A payment on a chain: where it landed (or why not), and what it pays for. */
export function renderChainPayment(doc: Document, p: ChainPaymentRow): HTMLElement {
  return h(
    doc,
    'article',
    { class: p.status === 'flagged' || p.status === 'releasing' ? 'card card-warning' : 'card', 'data-testid': `payment-${p.id}` },
    h(doc, 'p', { class: 'card-kind' }, `${p.amount} → ${p.payee} · ${p.mandate}`),
    h(doc, 'p', { class: 'card-title', 'data-testid': 'payment-summary' }, p.summary),
    h(doc, 'p', { class: 'mono muted', 'data-testid': 'payment-for' }, `${p.id} · for ${p.paysFor}`),
    p.transaction ? h(doc, 'p', { class: 'mono muted', 'data-testid': 'payment-transaction' }, p.transaction) : null,
    time(doc, p.at),
  );
}

/** An artifact an agent published, with a button that opens it. */
export function renderArtifact(doc: Document, a: ArtifactRow, view: ViewContext): HTMLElement {
  return h(
    doc,
    'article',
    { class: 'card', 'data-testid': `artifact-${a.id}` },
    h(doc, 'p', { class: 'card-kind' }, `${a.kind} · ${a.author}`),
    h(doc, 'p', { class: 'card-title' }, a.title),
    h(
      doc,
      'div',
      { class: 'actions' },
      button(doc, 'Open', `open-artifact-${a.id}`, () => view.post({ type: 'openArtifact', id: a.id }), { secondary: true }),
    ),
  );
}
