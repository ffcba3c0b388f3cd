import { html, type SafeHtml } from '../../html/index.js';

/** Who asks and until when: what a person weighs before answering a link they did not expect. */
export interface Asking {
  /** The workspace's display name, or the service's host when the workspace has none. */
  asker: string;
  /** The link's expiry (RFC 3339): after it the page takes no answer. */
  deadline: string;
}

/** An instant as a person reads it, in UTC: `2026-03-14 09:21:05 UTC`. */
export const readableTime = (at: string): string => `${new Date(at).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

/** Under the title: who sent the request and the deadline, as a machine-readable <time>. */
export function askingFacts(asking: Asking, deadlineLabel: string): SafeHtml {
  return html`<dl class="asking">
<div><dt>Asked by</dt><dd>${asking.asker}</dd></div>
<div><dt>${deadlineLabel}</dt><dd><time datetime="${asking.deadline}">${readableTime(asking.deadline)}</time></dd></div>
</dl>`;
}
