/**
 * The pages' toolkit, shared by every capability that answers a browser (the human link's page,
 * the developer accounts' pages): markup that escapes every value it did not build itself, the
 * one document layout, and the headers every such page is sent with.
 */
export { CONTENT_SECURITY_POLICY, HUMAN_PAGE_HEADERS } from './headers.js';
export { escapeHtml, html, SafeHtml } from './html.js';
export { pageDocument, STYLESHEET_PATH } from './layout.js';
