import { describe, it } from 'vitest';
import { ledger } from '../../eventstore/index.js';
import { decideQuotaUse, type QuotaEdges } from '../../src/quotas/decide.js';
import type { QuotaUsed } from '../../src/quotas/events.js';
import type { QuotaName } from '../../src/quotas/limits.js';
import { deciderSpec } from '../support/decider.js';

/**
 * The quota decider, pure: a workspace's uses are a ledger its projection counts, so the state
 * given is each quota's edge (its limit-th newest use), read from there; when a use, then it is
 * recorded or refused until the quota admits one again.
 */

const spec = deciderSpec(ledger<QuotaEdges, QuotaUsed>());
const T0 = Date.parse('2026-06-01T12:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);
const edges = (entries: Array<[QuotaName, number | null]>): QuotaEdges => new Map(entries.map(([name, ms]) => [name, ms === null ? null : at(ms)]));
const use = (state: QuotaEdges, now: number) => decideQuotaUse(state, { workspaceId: 'wks_D', use: 'session', now: at(now) });
const used: QuotaUsed = { type: 'quota.used', at: at(0).toISOString(), workspace_id: 'wks_D', use: 'session' };

describe('decideQuotaUse', () => {
  it('records a use while every quota over it has fewer uses than its limit', () => {
    const state = edges([['sessions_per_minute', null], ['sessions_per_day', null]]);
    spec().when(() => use(state, 0)).then(used);
  });

  it('records a use once the edge has left the window', () => {
    const state = edges([['sessions_per_minute', -60_000], ['sessions_per_day', null]]);
    spec().when(() => use(state, 0)).then(used);
  });

  it('refuses while a quota is full, until its edge leaves the window', () => {
    const state = edges([['sessions_per_minute', -15_000], ['sessions_per_day', null]]);
    spec().when(() => use(state, 0)).refuses('sessions_per_minute_used', { retryAfterSeconds: 45 });
  });

  it('when both quotas are full, names the one that admits again last', () => {
    const state = edges([['sessions_per_minute', -15_000], ['sessions_per_day', -3_600_000]]);
    spec().when(() => use(state, 0)).refuses('sessions_per_day_used', { retryAfterSeconds: 23 * 3600 });
  });
});
