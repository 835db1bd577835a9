/**
 * The office (seed 004): the human adds three colleagues — mandates with the office toolset — and each
 * talks to its own `holon mcp` server: lead mails ada, ada reads it with the office's header, bob is
 * refused a tool he lacks and asks a human for it. Bob's approval is left for the human.
 */
import type { Client } from '@modelcontextprotocol/client';
import { systemClock } from '../../../core/kernel/deps.ts';
import { DEMO_OFFICE, seedOffice } from '../../../core/office/demoOffice.ts';
import type { Demo, Scenario } from './play.ts';
import { indent, section, textOf, withAgents, withState } from './play.ts';

/** A colleague's agent: its own client, on its own server for its mandate. */
function colleague(demo: Demo, mandate: string): { mandate: string; client: string; args: string[] } {
  // These calls publish nothing; the state folder as workspace keeps the servers off the user's own folder.
  return { mandate, client: `holon-demo-${mandate.split('/')[1] ?? 'agent'}`, args: ['--workspace', demo.stateDir] };
}

/** Plays the office; returns bob's pending approval. */
async function playOffice(demo: Demo, [lead, ada, bob]: [Client, Client, Client]): Promise<string> {
  const { out } = demo;
  type Answer = { text: string; structured: Record<string, unknown>; isError: boolean };
  const call = async (who: Client, mandate: string, name: string, args: Record<string, unknown>): Promise<Answer> => {
    out(`[${mandate}] → ${name} ${JSON.stringify(args)}`);
    const r = await who.callTool({ name, arguments: args });
    return { text: textOf(r), structured: (r.structuredContent ?? {}) as Record<string, unknown>, isError: r.isError === true };
  };
  const mail = { to: 'ada', subject: 'Footer links', body: 'The footer links on the site are broken; can you fix them?' };
  const sent = await call(lead, DEMO_OFFICE.lead, 'mail_send', mail);
  if (sent.isError) throw new Error(`mail_send failed: ${sent.text}`);
  out(indent(`ada#${String(sent.structured['number'])} is new in ada's inbox`));
  const read = await call(ada, DEMO_OFFICE.ada, 'mail_read', { number: sent.structured['number'] });
  if (read.isError) throw new Error(`mail_read failed: ${read.text}`);
  out(indent(`${String(read.structured['header'])}\n${String(read.structured['body'])}`));
  const refused = await call(bob, DEMO_OFFICE.bob, 'colleagues_list', {});
  if (!refused.isError) throw new Error('colleagues_list was not refused to bob');
  out(indent(refused.text));
  const asked = await call(bob, DEMO_OFFICE.bob, 'approval_request', {
    title: 'See who is in the office',
    reason: 'to know whom to ask about the footer copy',
    kind: 'capability.window',
    capability: 'office.read',
    hours: 1,
  });
  if (asked.isError) throw new Error(`approval_request failed: ${asked.text}`);
  const id = String(asked.structured['approval']);
  out(indent(`${id} pending: bob carries on; a human decides it in the Holon view or with holon approve`));
  out("   each call above, allowed or refused, is ledgered with a safe summary: a body's length, never the body");
  return id;
}

async function play(demo: Demo): Promise<string[]> {
  section(demo.out, '8. The office: the mandates are colleagues (holon mcp --mandate demo/lead …)');
  await withState(demo.stateDir, (store) => seedOffice(store, systemClock));
  demo.out(
    `   the human adds ${DEMO_OFFICE.lead} (coordinator), ${DEMO_OFFICE.ada} (engineer; may mail lead) and ` +
      `${DEMO_OFFICE.bob} (writer; reads mail, may ask)`,
  );
  const agents = [colleague(demo, DEMO_OFFICE.lead), colleague(demo, DEMO_OFFICE.ada), colleague(demo, DEMO_OFFICE.bob)] as const;
  const windowApproval = await withAgents(demo, [...agents], (clients) => playOffice(demo, clients));
  return [
    `   Office: holon mcp --mandate ${DEMO_OFFICE.lead} ${demo.at} --workspace .   (or demo/ada, demo/bob)`,
    `           holon approve ${windowApproval} ${demo.at}   opens bob's office.read for an hour`,
  ];
}

export const office: Scenario = { play };
