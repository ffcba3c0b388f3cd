import { isUrlFault, type ErrorPages } from '../http/refusals.js';
import type { ApiError } from '../http/errors.js';
import { refusalError } from '../http/refusal.js';
import { SESSION_REFUSALS } from '../sessions/index.js';
import { HUMAN_PAGE_HEADERS } from '../html/index.js';
import { errorPage, NOT_FOUND_PAGE } from './render/pages.js';

/**
 * Every refusal on the human link (`/s/...`) is an HTML page with its code in data-error-code,
 * never the JSON envelope: a wrong, expired or purged link, and any URL that cannot be one, is the
 * one not-found page. The link is a capability, so no page echoes a path.
 */

/** A path under /s/ that is no route, or no URL at all, is a link that opens nothing. */
const asLink = (error: ApiError): ApiError => (error.refused === 'route_not_found' || isUrlFault(error) ? refusalError(SESSION_REFUSALS, { refused: 'link_not_found' }) : error);

export const HUMAN_ERROR_PAGES: ErrorPages = {
  paths: /^\/s(\/|\?|$)/,
  write(refusal, requestId) {
    const error = asLink(refusal);
    return {
      status: error.status,
      headers: { ...HUMAN_PAGE_HEADERS, ...error.headers },
      body: error.refused === 'link_not_found' ? NOT_FOUND_PAGE : errorPage(error, requestId),
    };
  },
};
