import { isUrlFault, type ErrorPages } from '../http/refusals.js';
import { HUMAN_PAGE_HEADERS } from '../html/index.js';
import { errorPage, NOT_FOUND_PAGE } from './render/pages.js';

/**
 * Every refusal on the human link (`/s/...`) is an HTML page with its code in data-error-code,
 * never the JSON envelope: a wrong, expired or purged link, and any URL that cannot be one, is the
 * one not-found page. The link is a capability, so no page echoes a path.
 */
export const HUMAN_ERROR_PAGES: ErrorPages = {
  paths: /^\/s(\/|\?|$)/,
  write(error, requestId) {
    const notFound = error.status === 404 || isUrlFault(error);
    return {
      status: notFound ? 404 : error.status,
      headers: { ...HUMAN_PAGE_HEADERS, ...error.headers },
      body: notFound ? NOT_FOUND_PAGE : errorPage(error.code, error.status, requestId),
    };
  },
};
