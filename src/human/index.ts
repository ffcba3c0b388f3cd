import type { Capability } from '../capability.js';
import { HUMAN_ERROR_PAGES } from './errorPages.js';
import { FORM_REFUSALS } from './refusals.js';
import { humanRoutes } from './routes.js';
export { newClientEventId, parseSubmission } from './form.js';
export { own } from './own.js';
export { NOT_FOUND_PAGE } from './render/pages.js';

/**
 * The human link: the page a person opens and answers (routes.ts); the form's values typed and
 * handed to the Session, which decides and accepts (accept.ts). Every refusal on its paths is its
 * HTML page.
 */

export const human: Capability = { name: 'human', routes: humanRoutes, refusals: FORM_REFUSALS, errorPages: HUMAN_ERROR_PAGES };
