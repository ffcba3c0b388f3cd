import type { InteractiveInteraction } from '../../sessions/index.js';
import { html, pageDocument, type SafeHtml } from '../../html/index.js';
import { acceptedDetails, type AcceptedView } from './accepted.js';
import { askingFacts, readableTime, type Asking } from './asking.js';

/** Where a decision by several people stands, as its pages show it (docs/decisions.md). */
export interface DecisionStanding {
  required: number;
  outcome: 'approved' | 'vetoed' | null;
  /** Who has decided so far, in the order accepted: the person (their address) and the choice's label. */
  decided: Array<{ who: string; choice: string; at: string }>;
}

const OUTCOME_WORDS = { approved: 'approved', vetoed: 'vetoed' } as const;

/** What the page says first: decided and how, or that it waits for more people. */
function statusLine(standing: DecisionStanding, own: AcceptedView | undefined): SafeHtml {
  if (standing.outcome !== null) return html`<p class="status" data-decision-outcome="${standing.outcome}">This request is decided: ${OUTCOME_WORDS[standing.outcome]}. It takes no more answers.</p>`;
  if (own) return html`<p class="status">Your answer is recorded. The request is decided once ${standing.required} people approve, or anyone vetoes.</p>`;
  return html`<p class="status">Several people decide this request, each through the link mailed to them: it is decided once ${standing.required} approve, or anyone vetoes. This page shows where it stands and takes no answer.</p>`;
}

function decisionStandingSection(standing: DecisionStanding): SafeHtml {
  return html`<section class="decision">
<h2>Decided so far</h2>
${
  standing.decided.length === 0
    ? html`<p>Nobody has answered yet.</p>`
    : html`<ul>${standing.decided.map((d) => html`<li>${d.who}: ${d.choice} (<time datetime="${d.at}">${readableTime(d.at)}</time>)</li>`)}</ul>`
}
</section>`;
}

/**
 * A decision by several people without a form: on the shared link (read-only), to a responder who
 * answered already (with their answer), and to everyone once it is decided.
 */
export function decisionPage(interaction: InteractiveInteraction, standing: DecisionStanding, asking: Asking, own?: AcceptedView): string {
  return pageDocument({
    title: interaction.title,
    main: html`<h1>${interaction.title}</h1>
${askingFacts(asking, 'Open until')}
${interaction.description !== undefined && html`<p class="description">${interaction.description}</p>`}
${statusLine(standing, own)}
${decisionStandingSection(standing)}
${own && html`<h2>Your answer</h2>${acceptedDetails(own)}`}`,
  });
}
