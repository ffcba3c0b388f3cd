import { fileURLToPath } from 'node:url';
import type { Capability } from '../capability.js';
import { isUrlFault, notFound, envelopeResponse } from '../http/refusals.js';
import { trialsProjection } from './projection.js';
import { TRIAL_REFUSALS } from './refusals.js';
import { trialRoutes } from './routes.js';

/**
 * The no-signup trial: a trial is a workspace of its own, opened by a management credential,
 * whose Sessions are the Sessions capability's, with a one-hour link and deadlines of their own.
 */
/** What developer accounts need to claim a trial. */
export { trialForClaim } from './commands.js';
export { isManagementCredential } from './credential.js';
export { ADMISSIONS_STREAM } from './events.js';
export { TRIAL_LIMITS } from './limits.js';

export const trials: Capability = {
  name: 'trials',
  contract: { tag: { name: 'Trials', description: 'Sessions without an account: a trial and its Sessions under the management credential it answers once.' } },
  routes: trialRoutes,
  // Its tables: trials, their Sessions' deadlines, the admissions ledger.
  migrations: fileURLToPath(new URL('./migrations/', import.meta.url)),
  inlineProjections: () => [trialsProjection],
  refusals: TRIAL_REFUSALS,
  // Trial routes answer every fault of their URL as an unknown trial path: never 400, never 401.
  errorPages: { paths: /^\/v1\/trial(\/|\?|$)/, write: (error, requestId) => envelopeResponse(isUrlFault(error) ? notFound() : error, requestId) },
};
