import type { ErrorPages } from '../http/refusals.js';
import { HUMAN_PAGE_HEADERS } from '../html/index.js';
import { accountErrorPage } from './render/pages.js';

/**
 * Every refusal under /app is an account page with its code in data-error-code, never the JSON
 * envelope, whatever refused it: a page's own refusal, the edge's (a form too large, the data key
 * missing, the database out of reach) or a path that is no page.
 */
export const ACCOUNT_ERROR_PAGES: ErrorPages = {
  paths: /^\/app(\/|\?|$)/,
  write(error, requestId) {
    const message = error.refused === 'route_not_found' ? 'There is no such account page.' : error.message;
    return { status: error.status, headers: { ...HUMAN_PAGE_HEADERS, ...error.headers }, body: accountErrorPage({ code: error.code, message }, requestId) };
  },
};
