import { fileURLToPath } from 'node:url';
import type { Capability } from '../capability.js';
import { ACCOUNT_ERROR_PAGES } from './errorPages.js';
import { accountsProjection } from './projection.js';
import { ACCOUNT_REFUSALS } from './refusals.js';
import { developerKeyResolver } from './resolver.js';
import { accountRoutes } from './routes.js';
export { requestSignInLink } from './commands.js';
export { decideLinkSent, decideSignIn } from './decide.js';
export { type AddressEvent } from './events.js';
export { type SignInMail } from './mail.js';
export { NEW_ADDRESS, evolveAddress, type AddressState } from './state.js';

/**
 * Developer accounts: email-link sign-in, self-service API keys (a developer key is one more owner
 * credential resolver, resolver.ts), and claiming a trial into an account. docs/accounts.md.
 */

export const accounts: Capability = {
  name: 'accounts',
  contract: { tag: { name: 'Accounts', description: 'Developer accounts: the emailed sign-in link to the account pages.' } },
  routes: accountRoutes,
  // Its tables: sign-in links, accounts, their sessions and keys, trial claims.
  migrations: fileURLToPath(new URL('./migrations/', import.meta.url)),
  inlineProjections: ({ streamKeys }) => [accountsProjection(streamKeys)],
  refusals: ACCOUNT_REFUSALS,
  errorPages: ACCOUNT_ERROR_PAGES,
  credentialResolver: developerKeyResolver,
};
