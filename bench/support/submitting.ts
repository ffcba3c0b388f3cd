import type { LoadGenerator } from './load.js';
import type { Contender } from './rounds.js';
import type { BenchService } from './service.js';

/**
 * Accepted human submissions from the load generator, `clients` at a time, each answering a
 * Session created for it just before the pass (not timed). A pass answers `amount` Sessions when
 * given; else as many as the previous pass's rate gives in the pass's seconds (the first pass
 * answers 25 per client), so that no more Sessions are made than are answered.
 */
export function submissionsContender(
  load: LoadGenerator,
  service: Pick<BenchService, 'baseUrl' | 'ownerKey'>,
  options: { clients: number; amount?: number; label?: string },
): Contender {
  let lastRate: number | undefined;
  return async ({ seconds }) => {
    const amount =
      options.amount ?? (lastRate === undefined ? options.clients * 25 : Math.max(options.clients * 10, Math.round(lastRate * seconds)));
    // Each connection builds its next request before it knows the run is over: one spare each.
    const sessions = await load.createSessions({ origin: service.baseUrl, ownerKey: service.ownerKey, count: amount + options.clients });
    const measured = await load.http({
      label: options.label ?? `POST /s/{token}, accepted, ${options.clients} clients`,
      origin: service.baseUrl,
      connections: options.clients,
      seconds,
      amount,
      requests: { kind: 'submissions', sessions },
    });
    lastRate = measured.rate;
    return measured;
  };
}
