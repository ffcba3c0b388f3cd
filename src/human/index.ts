import type { Capability } from '../capability.js';
import { HUMAN_ERROR_PAGES } from './errorPages.js';
import { FORM_REFUSALS } from './refusals.js';
import { humanRoutes } from './routes.js';

/**
 * The human link: the page a person opens and answers (routes.ts); the form's values typed and
 * handed to the Session, which decides and accepts (accept.ts). Every refusal on its paths is its
 * HTML page.
 */
export { HUMAN_PAGE_HEADERS } from './headers.js';
/** The pages of developer accounts share the human page's markup and layout. */
export { html, type SafeHtml } from './render/html.js';
export { pageDocument } from './render/layout.js';

export const human: Capability = { name: 'human', routes: humanRoutes, refusals: FORM_REFUSALS, errorPages: HUMAN_ERROR_PAGES };
