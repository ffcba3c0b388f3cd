import { fileURLToPath } from 'node:url';

/**
 * Developer accounts: email-link sign-in, self-service API keys (a developer key is one more owner
 * credential resolver, resolver.ts), and claiming a trial into an account. docs/accounts.md.
 */
export { accountRoutes } from './routes.js';
export { accountsProjection } from './projection.js';
/** The accounts capability's tables: sign-in links, accounts, their sessions and keys, trial claims. */
export const ACCOUNTS_MIGRATIONS = fileURLToPath(new URL('./migrations/', import.meta.url));
