import type { ApiError } from '../../http/errors.js';
import type { DisplayInteraction, InteractiveInteraction } from '../../sessions/index.js';
import { acceptedDetails, type AcceptedView } from './accepted.js';
import { askingFacts, type Asking } from './asking.js';
import { displayDataList } from './display.js';
import { errorText } from './errors.js';
import { html, pageDocument, type SafeHtml } from '../../html/index.js';
import { surfaceForm, type SurfaceForm } from './surface.js';

/** Every page the human link shows, as complete HTML documents. Pure: no I/O, no clock, no randomness. */

/** The title, who asks and until when (when the page knows), then the description. */
const heading = (interaction: InteractiveInteraction | DisplayInteraction, asking?: { facts: Asking; deadlineLabel: string }): SafeHtml =>
  html`<h1>${interaction.title}</h1>
${asking && askingFacts(asking.facts, asking.deadlineLabel)}
${interaction.description !== undefined && html`<p class="description">${interaction.description}</p>`}`;

/** Why the form is shown again: its answers need fixing (422), or the page changed under them (409). */
export type FormProblem = { code: 'VALIDATION_FAILED'; formErrors: string[] } | { code: 'SESSION_REVISION_CONFLICT' };

function problemNotice(problem: FormProblem): SafeHtml {
  if (problem.code === 'SESSION_REVISION_CONFLICT') {
    return html`<div class="notice" role="alert"><p><strong>This page changed while you were answering.</strong> Nothing was recorded. This is the current version; the answers you gave that still fit it are filled in. Check them and send again.</p></div>`;
  }
  return html`<div class="notice" role="alert"><p><strong>Some answers need attention.</strong> Nothing was recorded yet.</p>
${problem.formErrors.length > 0 && html`<ul>${problem.formErrors.map((message) => html`<li>${message}</li>`)}</ul>`}</div>`;
}

/** The current revision of an interactive Session, ready to answer. */
export function formPage(form: SurfaceForm & { problem?: FormProblem; asking?: Asking }): string {
  return pageDocument({
    title: form.interaction.title,
    errorCode: form.problem?.code,
    main: html`${heading(form.interaction, form.asking && { facts: form.asking, deadlineLabel: 'Answer by' })}
${form.problem && problemNotice(form.problem)}
${surfaceForm(form)}`,
  });
}

export function displayPage(interaction: DisplayInteraction, asking?: Asking): string {
  return pageDocument({
    title: interaction.title,
    main: html`${heading(interaction, asking && { facts: asking, deadlineLabel: 'Shown until' })}
${displayDataList(interaction)}`,
  });
}

/** Right after acceptance (200 to the POST, and to its repetition with the same client_event_id). */
export function confirmationPage(accepted: AcceptedView): string {
  return pageDocument({
    title: 'Answer recorded',
    main: html`<h1>Thank you: your answer was recorded</h1>
<p class="description">${accepted.interaction.title}</p>
${acceptedDetails(accepted)}`,
  });
}

/** The Session waits for its next revision: the current one has its one answer. */
export function respondedPage(accepted: AcceptedView, asking?: Asking): string {
  return pageDocument({
    title: accepted.interaction.title,
    main: html`${heading(accepted.interaction, asking && { facts: asking, deadlineLabel: 'Open until' })}
<p class="status">This step has been answered. This page will ask again if there is anything more.</p>
${acceptedDetails(accepted)}`,
  });
}

/** The Session is completed; the last accepted answer, if any, stays visible. */
export function completedPage(interaction: InteractiveInteraction, last: AcceptedView | undefined): string {
  return pageDocument({
    title: interaction.title,
    main: html`${heading(interaction)}
<p class="status">This request is closed and takes no more answers.</p>
${last ? html`<h2>Last answer recorded</h2>${acceptedDetails(last)}` : html`<p>It was closed without an answer.</p>`}`,
  });
}

/** One page for every wrong, expired or revoked link: byte-identical, so it tells nothing apart. */
export const NOT_FOUND_PAGE = pageDocument({
  title: 'Page not found',
  errorCode: 'NOT_FOUND',
  main: html`<h1>This page is not available</h1>
<p>The link may be mistyped, or it may have expired or been withdrawn. Ask whoever sent it for a new one.</p>`,
});

/** A refusal on the human page; the link back reloads the page the person came from. */
export function errorPage({ code, refused, reason }: Pick<ApiError, 'code' | 'refused' | 'reason'>, requestId?: string): string {
  const text = errorText(code, refused, reason);
  return pageDocument({
    title: text.title,
    errorCode: code,
    main: html`<h1>${text.title}</h1>
<p>${text.message}</p>
<p><a href="">Open the page again</a></p>
${requestId !== undefined && html`<p class="reference">Reference: <code>${requestId}</code></p>`}`,
  });
}
