/**
 * An agent that needs a person's approval before it refunds an order: it creates a Session, prints
 * the link for the person, waits for the answer, checks the answer's receipt, then acts on it.
 *
 *   SVC_API_KEY=<owner key or developer key> npx tsx examples/agent.ts
 *
 * SVC_URL is the service (http://127.0.0.1:8080 unless set). The client is the `svc-handoff`
 * package: in this checkout the import below resolves to src/client; in another project, install
 * the package first (`npm run pack:client` here, then `npm install <path>/build/svc-handoff-0.1.0.tgz`
 * there; once published, `npm install svc-handoff`) and the same code runs unchanged, saved as
 * agent.mts in a CommonJS project (what `npm init -y` makes), where top-level await needs an ES
 * module's name.
 *
 * The key is the owner key `npm start` printed or a developer's API key (svc_sk_..., made at
 * /app/keys): either way the receipt is checked against the key's own workspace, which the client
 * asks the service for (GET /v1/me).
 */
import { createClient } from 'svc-handoff/client';

const apiKey = process.env.SVC_API_KEY;
if (!apiKey) throw new Error('Set SVC_API_KEY to the owner key `npm start` printed, or a developer key (svc_sk_...) from /app/keys.');
const client = createClient({ baseUrl: process.env.SVC_URL ?? 'http://127.0.0.1:8080', apiKey });

const session = await client.createSession({
  mode: 'interactive',
  title: 'Approve the refund for order 1042',
  description: 'The customer says the parcel arrived damaged and asks for a refund of 49.90 EUR.',
  source: {
    kind: 'svc_surface',
    components: [
      { type: 'record', label: 'Order', fields: { order: '1042', customer: 'A. Example', total: 49.9 } },
      { type: 'field', name: 'amount', label: 'Refund amount (EUR)', schema: { type: 'number', minimum: 0, maximum: 49.9 }, value: 49.9, required: true },
      { type: 'field', name: 'note', label: 'Note to the customer', schema: { type: 'string', maxLength: 500 }, multiline: true },
    ],
  },
  actions: [
    { id: 'approve', label: 'Approve refund', intent: 'approve' },
    { id: 'reject', label: 'Reject', intent: 'reject' },
  ],
});
console.log(`Waiting for a person to answer at:\n  ${session.human_url}`);

// Ctrl-C stops waiting; the Session stays open, so the agent can come back for the answer later.
const stop = new AbortController();
process.once('SIGINT', () => stop.abort(new Error('Stopped waiting.')));
const { response } = await client.waitForResponse(session.id, { signal: stop.signal, timeoutMs: 60 * 60_000 });

// The receipt proves what the service accepted: this action, this input, on this revision, for
// this key's workspace.
const receipt = await client.verifyReceipt(session.id, response);
console.log(`Receipt verified: "${receipt.summary}", accepted at ${receipt.accepted_at} for workspace ${receipt.workspace_id}.`);

const { amount, note } = response.data as { amount: number; note?: string };
console.log(response.action_id === 'approve' ? `Decision: refund ${amount.toFixed(2)} EUR${note ? ` (note: ${note})` : ''}.` : 'Decision: no refund.');
await client.complete(session.id);
