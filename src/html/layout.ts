import type { ErrorCode } from '../http/errors.js';
import { html, type SafeHtml } from './html.js';

/** The page's only stylesheet, served by the human routes from this origin (the CSP allows 'self'). */
export const STYLESHEET_PATH = '/assets/human.css';

/**
 * A complete HTML document. The stable error code, when there is one, is on <main> as
 * data-error-code. No script, no inline style, nothing fetched from elsewhere; a page
 * of another capability may add one stylesheet of its own from this origin.
 */
export function pageDocument(page: { title: string; main: SafeHtml; errorCode?: ErrorCode; stylesheet?: string }): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<title>${page.title}</title>
<link rel="stylesheet" href="${STYLESHEET_PATH}">
${page.stylesheet !== undefined && html`<link rel="stylesheet" href="${page.stylesheet}">
`}</head>
<body>
<main${page.errorCode ? html` data-error-code="${page.errorCode}"` : ''}>
${page.main}
</main>
</body>
</html>
`.text;
}
