import type { ErrorCode } from '../../http/errors.js';
import { html, pageDocument, type SafeHtml } from '../../html/index.js';
import { EXPIRY_CHOICES, type ExpiryChoice } from '../limits.js';

/**
 * The account pages, as complete HTML documents: plain forms, no script, the human page's
 * stylesheet and a few rules of their own. Every error page and every page that shows a refusal
 * carries its code in data-error-code. Pure: no I/O, no clock, no randomness.
 */

export const ACCOUNT_STYLESHEET_PATH = '/assets/account.css';

/** A refusal shown on a page: its code and what a person reads. */
export interface Problem {
  code: ErrorCode;
  message: string;
}

const document = (title: string, main: SafeHtml, problem?: Problem): string =>
  pageDocument({ title, main, errorCode: problem?.code, stylesheet: ACCOUNT_STYLESHEET_PATH });

const problemNotice = (problem: Problem | undefined): SafeHtml | undefined =>
  problem && html`<div class="notice" role="alert"><p>${problem.message}</p></div>`;

const infoNotice = (text: string | undefined): SafeHtml | undefined => text !== undefined ? html`<div class="notice info" role="status"><p>${text}</p></div>` : undefined;

const csrfField = (csrf: string): SafeHtml => html`<input type="hidden" name="csrf" value="${csrf}">`;

/** A time as the pages show it: to the minute, in UTC. */
const utc = (at: Date): string => `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

export interface SignInView {
  csrf: string;
  email?: string;
  /** A key form waits in this browser for the sign-in. */
  keyPending: boolean;
  problem?: Problem;
}

export function signInPage(view: SignInView): string {
  return document(
    'Sign in',
    html`<h1>Sign in</h1>
${problemNotice(view.problem)}
${infoNotice(view.keyPending ? 'Sign in to finish creating your key: it is created once you confirm the emailed link in this browser.' : undefined)}
<p class="description">We email you a link that signs you in. It works once, for 15 minutes.</p>
<form method="post" action="/app/sign-in">
${csrfField(view.csrf)}
<div class="field"><label for="email">Email address</label>
<input type="text" inputmode="email" autocomplete="email" spellcheck="false" id="email" name="email" maxlength="254" required value="${view.email ?? ''}"></div>
<div class="actions"><button type="submit">Email me a sign-in link</button></div>
</form>`,
    view.problem,
  );
}

export function linkSentPage(view: { keyPending: boolean }): string {
  return document(
    'Check your email',
    html`<h1>Check your email</h1>
<p>If the address can receive mail, a sign-in link is on its way. Open it${view.keyPending ? ' in this browser to finish creating your key' : ''}; it works once, for 15 minutes.</p>
<p class="hint">Asking for another link cancels this one once the new one is sent.</p>`,
  );
}

/** The emailed link's page: nothing is consumed until the button posts. */
export function confirmPage(view: { csrf: string }): string {
  return document(
    'Sign in',
    html`<h1>Sign in to your developer account</h1>
<p>Press the button to sign in with this link. It works once.</p>
<form method="post">
${csrfField(view.csrf)}
<div class="actions"><button type="submit">Sign in</button></div>
</form>`,
  );
}

export interface KeyRowView {
  keyId: string;
  fingerprint: string;
  label: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  state: 'active' | 'revoked' | 'expired';
}

export interface KeyFormView {
  nonce: string;
  renderedAt: string;
  /** The date each choice's key would expire on, as of renderedAt. */
  dates: Record<ExpiryChoice, string | null>;
  label?: string;
  choice?: string;
}

export interface KeysView {
  csrf: string;
  email: string | null;
  workspaceId: string;
  keys: KeyRowView[];
  claims: Array<{ workspaceId: string; claimedAt: Date }>;
  form: KeyFormView;
  /** A key just created: shown this once. */
  created?: string;
  problem?: Problem;
  notice?: string;
}

const choiceText = (choice: ExpiryChoice, date: string | null): string => (date === null ? 'Never' : `${choice} days (expires ${date})`);

function keyForm(csrf: string, form: KeyFormView): SafeHtml {
  const checked = form.choice ?? '90';
  return html`<form method="post" action="/app/keys">
${csrfField(csrf)}
<input type="hidden" name="nonce" value="${form.nonce}">
<input type="hidden" name="rendered_at" value="${form.renderedAt}">
<div class="field"><label for="label">Label <span class="required">(optional, up to 64 characters)</span></label>
<input type="text" id="label" name="label" maxlength="64" autocomplete="off" value="${form.label ?? ''}"></div>
<fieldset class="field choices"><legend>Expiry</legend>
${EXPIRY_CHOICES.map(
  (choice) => html`<div class="choice"><input type="radio" id="expires-${choice}" name="expires_in_days" value="${choice}"${choice === checked ? html` checked` : ''}><label for="expires-${choice}">${choiceText(choice, form.dates[choice])}</label></div>
`,
)}</fieldset>
<div class="actions"><button type="submit">Create key</button></div>
</form>`;
}

function keyItem(csrf: string, key: KeyRowView): SafeHtml {
  return html`<li class="key key-${key.state}" data-key-id="${key.keyId}">
<dl>
<div><dt>Label</dt><dd>${key.label ?? '(none)'}</dd></div>
<div><dt>Fingerprint</dt><dd><code>${key.fingerprint}</code></dd></div>
<div><dt>Created</dt><dd>${utc(key.createdAt)}</dd></div>
<div><dt>Last used</dt><dd>${key.lastUsedAt ? utc(key.lastUsedAt) : 'never'}</dd></div>
<div><dt>Expires</dt><dd>${key.expiresAt ? utc(key.expiresAt) : 'never'}</dd></div>
<div><dt>State</dt><dd class="state">${key.state}</dd></div>
</dl>
${key.state === 'active' && html`<form method="post" action="/app/keys/${key.keyId}/revoke">${csrfField(csrf)}<button type="submit" class="secondary">Revoke</button></form>`}
</li>`;
}

export function keysPage(view: KeysView): string {
  return document(
    'API keys',
    html`<h1>API keys</h1>
<p class="description">Signed in${view.email !== null ? html` as <strong>${view.email}</strong>` : ''}. Workspace <code>${view.workspaceId}</code>.</p>
${problemNotice(view.problem)}
${infoNotice(view.notice)}
${view.created !== undefined && html`<section class="secret" role="status"><h2>Your new key</h2>
<p>Copy it now: it is shown only this once. Send it as <code>Authorization: Bearer &lt;key&gt;</code>.</p>
<pre id="new-key">${view.created}</pre></section>`}
<h2>Create a key</h2>
${keyForm(view.csrf, view.form)}
<h2>Your keys</h2>
${view.keys.length === 0 ? html`<p>No keys yet.</p>` : html`<ul class="keys">${view.keys.map((key) => keyItem(view.csrf, key))}</ul>`}
<h2>Claim a trial</h2>
<p class="hint">Paste a trial's management credential to read its Sessions with your keys while their results are available.</p>
<form method="post" action="/app/trials/claim">
${csrfField(view.csrf)}
<div class="field"><label for="management_credential">Management credential</label>
<input type="text" id="management_credential" name="management_credential" autocomplete="off" spellcheck="false" required></div>
<div class="actions"><button type="submit">Claim trial</button></div>
</form>
${view.claims.length > 0 && html`<h3>Claimed trials</h3><ul class="claims">${view.claims.map((c) => html`<li><code>${c.workspaceId}</code> since ${utc(c.claimedAt)}</li>`)}</ul>`}
<form method="post" action="/app/sign-out" class="sign-out">${csrfField(view.csrf)}<button type="submit" class="secondary">Sign out</button></form>`,
    view.problem,
  );
}

/** A refusal with nothing else to show: what happened, and the way on. */
export function accountErrorPage(problem: Problem, requestId: string): string {
  return document(
    'Something needs attention',
    html`<h1>This did not work</h1>
${problemNotice(problem)}
<p><a href="/app/keys">Go to your keys</a> or <a href="/app/sign-in">sign in again</a>.</p>
<p class="reference">Reference: <code>${requestId}</code></p>`,
    problem,
  );
}
