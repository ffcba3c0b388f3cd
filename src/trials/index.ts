import { fileURLToPath } from 'node:url';

/**
 * The no-signup trial: a trial is a workspace of its own, opened by a management credential,
 * whose Sessions are the Sessions capability's, with a one-hour link and deadlines of their own.
 */
export { trialRoutes } from './routes.js';
export { trialsProjection } from './projection.js';
/** What developer accounts need to claim a trial. */
export { trialForClaim } from './commands.js';
export { isManagementCredential } from './credential.js';
/** The trials capability's tables: trials, their Sessions' deadlines, the admissions ledger. */
export const TRIALS_MIGRATIONS = fileURLToPath(new URL('./migrations/', import.meta.url));
