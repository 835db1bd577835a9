/**
 * The demo's office: a lead who coordinates (and may propose personnel changes) and two colleagues, so
 * anyone can try the office tools with `holon mcp --mandate demo/lead` on the demo's state.
 */
import { CAP } from '../kernel/capabilities.ts';
import type { Clock } from '../kernel/deps.ts';
import type { EventStore } from '../store/store.ts';
import type { MandatesFields } from '../accounts/mandates.ts';
import { createMandate } from '../accounts/mandates.ts';
import type { Mandate } from '../kernel/model.ts';

/** The office's mandates, by the slug of their grantee. */
export const DEMO_OFFICE = { lead: 'demo/lead', ada: 'demo/ada', bob: 'demo/bob' } as const;

/** Creates the demo office's three colleagues on `account` (default `demo`). */
export async function seedOffice(store: EventStore<MandatesFields>, clock: Clock, repo = '*'): Promise<Mandate[]> {
  const base = { currency: 'EUR', budget: { total: '5.00', per_day: '2.00' }, toolsets: ['office'] };
  return [
    await createMandate(store, clock, DEMO_OFFICE.lead, {
      ...base,
      grantee: { slug: 'lead', name: 'Lea Lead', role: 'coordinator', manager: 'human:owner@example.com', department: 'Delivery' },
      capabilities: [
        { name: CAP.mailRead },
        { name: CAP.mailSend },
        { name: CAP.officeRead },
        { name: CAP.approvalRequest },
        { name: CAP.artifactPublish },
        { name: CAP.forgeRead, params: { repos: [repo] } },
        { name: CAP.hrPropose },
      ],
    }),
    await createMandate(store, clock, DEMO_OFFICE.ada, {
      ...base,
      grantee: { slug: 'ada', name: 'Ada Engineer', role: 'engineer', manager: 'agent:lead', department: 'Delivery' },
      capabilities: [
        { name: CAP.mailRead },
        { name: CAP.mailSend, params: { to: ['lead'] } },
        { name: CAP.officeRead },
        { name: CAP.approvalRequest },
        { name: CAP.artifactPublish },
        { name: CAP.forgeRead, params: { repos: [repo] } },
        { name: CAP.forgeWrite, params: { repos: [repo] } },
      ],
    }),
    await createMandate(store, clock, DEMO_OFFICE.bob, {
      ...base,
      grantee: { slug: 'bob', name: 'Bob Writer', role: 'writer', manager: 'agent:lead', department: 'Delivery' },
      capabilities: [{ name: CAP.mailRead }, { name: CAP.approvalRequest }],
    }),
  ];
}
