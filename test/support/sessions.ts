import type { TestApp } from './app.js';

/** Fixtures and calls shared by every test that drives the owner API. */

export function interactive(overrides: Record<string, unknown> = {}) {
  return {
    mode: 'interactive',
    title: 'Approve the refund',
    description: 'Customer asked for a refund of order 1042.',
    source: {
      kind: 'svc_surface',
      components: [
        { type: 'heading', text: 'Refund' },
        { type: 'record', label: 'Order', fields: { order: 1042, amount: '19.99 EUR', paid: true, note: null } },
        { type: 'field', name: 'amount', label: 'Amount', schema: { type: 'number', minimum: 0, maximum: 100 }, required: true, value: 19.99 },
        { type: 'field', name: 'reason', label: 'Reason', schema: { type: 'string', maxLength: 500 }, multiline: true },
      ],
    },
    actions: [
      { id: 'approve', label: 'Approve', intent: 'approve' },
      { id: 'reject', label: 'Reject', intent: 'reject' },
    ],
    ...overrides,
  };
}

export function display(overrides: Record<string, unknown> = {}) {
  return {
    mode: 'display',
    title: 'Shipment status',
    source: { kind: 'data', data: { carrier: 'DHL', eta: { day: 'Monday', window: 'AM' }, parcels: [{ id: 'p1', kg: 2 }, { id: 'p2', kg: 3.5 }] } },
    ...overrides,
  };
}

export const owner = (t: TestApp, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${t.ctx.config.ownerKey}`,
  ...extra,
});

export async function createSession(t: TestApp, interaction: object = interactive()) {
  const res = await t.app.inject({ method: 'POST', url: '/v1/sessions', headers: owner(t), payload: { interaction } });
  if (res.statusCode !== 201) throw new Error(`create failed: ${res.statusCode} ${res.body}`);
  const body = res.json<{ id: string; revision: number; human_url: string; link_expires_at: string }>();
  return { ...body, etag: res.headers.etag as string, token: body.human_url.split('/s/')[1]! };
}

/** Publishes the Session's next revision (PATCH with If-Match); fails unless it is published. */
export async function publishRevision(t: TestApp, sessionId: string, ifMatch: string, interaction: object = interactive({ title: 'The next revision' })) {
  const res = await t.app.inject({ method: 'PATCH', url: `/v1/sessions/${sessionId}`, headers: owner(t, { 'if-match': ifMatch }), payload: { interaction } });
  if (res.statusCode !== 200) throw new Error(`publish failed: ${res.statusCode} ${res.body}`);
}

