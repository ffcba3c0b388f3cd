import fc from 'fast-check';
import { expect, it } from 'vitest';
import { loadSession } from '../src/sessions/index.js';
import { etagOf } from '../src/sessions/index.js';
import { sessionBodies, sessionBody, withLinkExpiry } from '../src/sessions/index.js';
import type { TestApp } from '../test/support/app.js';
import { formBody, postForm } from '../test/human/form-post.js';
import { useTestApp } from '../test/support/lifecycle.js';
import { storedRevision, storedView } from '../test/support/storedViews.js';
import { createSession, display, interactive, owner } from '../test/support/sessions.js';
import type { InteractiveInteraction } from '../src/sessions/index.js';

/**
 * The inline Session view is a fold of the log: after any sequence of creates, publishes, answers
 * and completions (refused ones included), the stored view, ETag and revisions equal what a fresh
 * fold of each Session's stream renders.
 */

interface Tracked {
  id: string;
  token: string;
  etag: string;
  revision: number;
}

type Step =
  | { kind: 'create'; mode: 'display' | 'interactive' }
  | { kind: 'publish'; pick: number; stale: boolean }
  | { kind: 'answer'; pick: number; amount: number; stale: boolean }
  | { kind: 'complete'; pick: number; stale: boolean };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('create' as const), mode: fc.constantFrom('display' as const, 'interactive' as const) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('publish' as const), pick: fc.nat(), stale: fc.boolean() }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('answer' as const), pick: fc.nat(), amount: fc.integer({ min: -5, max: 105 }), stale: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('complete' as const), pick: fc.nat(), stale: fc.boolean() }) },
);

const { t } = useTestApp();
let answers = 0;

async function apply(step: Step, sessions: Tracked[]): Promise<void> {
  if (step.kind === 'create') {
    const created = await createSession(t, step.mode === 'display' ? display() : interactive());
    sessions.push({ id: created.id, token: created.token, etag: created.etag, revision: 1 });
    return;
  }
  const s = sessions[step.pick % sessions.length];
  if (!s) return;
  if (step.kind === 'answer') {
    const revision = step.stale && s.revision > 1 ? s.revision - 1 : s.revision;
    const interaction = interactive() as unknown as InteractiveInteraction;
    const body = formBody(interaction, { clientEventId: `client-${++answers}-${'x'.repeat(12)}`, revision, actionId: 'approve', data: { amount: step.amount } });
    await postForm(t, s.token, body);
  } else {
    const headers = owner(t, { 'if-match': step.stale ? '"9.9"' : s.etag });
    const res =
      step.kind === 'publish'
        ? await t.app.inject({ method: 'PATCH', url: `/v1/sessions/${s.id}`, headers, payload: { interaction: interactive({ title: `R${s.revision + 1}` }) } })
        : await t.app.inject({ method: 'POST', url: `/v1/sessions/${s.id}/complete`, headers });
    if (res.statusCode === 200 && step.kind === 'publish') s.revision++;
  }
  s.etag = (await t.app.inject({ url: `/v1/sessions/${s.id}`, headers: owner(t) })).headers.etag as string;
}

async function expectViewsAreFolds(app: TestApp, sessions: Tracked[]): Promise<void> {
  for (const { id } of sessions) {
    const state = (await loadSession(app.ctx.store.pool, app.ctx.streamKeys, id))!;
    const view = (await app.ctx.store.pool.query('SELECT etag, revision, event_count FROM session_views WHERE session_id = $1', [id])).rows[0];
    const bodies = sessionBodies(state, state.revisions.map((_, i) => i + 1));
    const stored = (await storedView(app.ctx.store.pool, app.ctx.streamKeys, id))!;
    expect({ ...view, frame: stored.frame }).toEqual({
      etag: etagOf(state),
      frame: bodies.frame,
      revision: state.revisions.length,
      event_count: state.events.length,
    });
    const revisions = await Promise.all(
      state.revisions.map(async (_, i) => ({ revision: i + 1, body: await storedRevision(app.ctx.store.pool, app.ctx.streamKeys, id, i + 1) })),
    );
    // The view stores its frame, read back joined with its revision's members; the link's expiry,
    // which every answer adds from the view's column, is in neither.
    expect(withLinkExpiry(stored.body, state.linkExpiresAt)).toBe(sessionBody(state));
    expect(revisions).toEqual(bodies.revisions.map((body, i) => ({ revision: i + 1, body })));
  }
}

it('the inline view, its ETag and its revisions equal a fresh fold of the log after any sequence of commands', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 20 }), async (steps) => {
      const sessions: Tracked[] = [];
      for (const s of [{ kind: 'create', mode: 'interactive' } as const, ...steps]) await apply(s, sessions);
      await expectViewsAreFolds(t, sessions);
    }),
    {
      numRuns: 25,
      // The first run is this one, which publishes, answers and completes for real whatever the
      // draws: the check below then cannot fail for want of a lucky draw (a completion is rare).
      examples: [
        [
          [
            { kind: 'publish', pick: 0, stale: false },
            { kind: 'answer', pick: 0, amount: 10, stale: false },
            { kind: 'create', mode: 'interactive' },
            { kind: 'complete', pick: 1, stale: false },
          ],
        ],
      ],
    },
  );
  // The runs answered, published and completed for real, not only refused.
  const { rows } = await t.ctx.store.pool.query<{ type: string }>('SELECT DISTINCT type FROM events');
  expect(rows.map((r) => r.type).sort()).toEqual(['response.accepted', 'revision.published', 'session.completed', 'session.created']);
});
