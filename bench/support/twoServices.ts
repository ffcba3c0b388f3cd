import type { LoadGenerator } from './load.js';
import { heading, printFigure, ratios } from './result.js';
import { interleave } from './rounds.js';
import type { BenchService } from './service.js';
import { creationsContender, submissionsContender } from './submitting.js';

/** One of two services alike but for one thing, and what that thing is on it. */
export interface Side {
  service: Pick<BenchService, 'baseUrl' | 'ownerKey'>;
  label: string;
}

const CLIENTS = 8;

/**
 * Accepted submissions, then Session creations, 8 clients each, through two services alike but for
 * `what`, in turn (interleaved rounds): each figure is the subject's rate over the baseline's.
 */
export async function compareServices(load: LoadGenerator, what: string, baseline: Side, subject: Side): Promise<void> {
  for (const [name, contender] of [
    ['POST /s/{token} accepted', submissionsContender],
    ['POST /v1/sessions', creationsContender],
  ] as const) {
    heading(`${name}, ${CLIENTS} clients: ${what}`);
    const side = ({ service, label }: Side) => contender(load, service, { clients: CLIENTS, label: `${name}, ${label}` });
    const results = await interleave({ baseline: side(baseline), subject: side(subject) });
    printFigure({ name: `${name}, ${subject.label} / ${baseline.label}`, values: ratios(results.subject, results.baseline) });
  }
}
