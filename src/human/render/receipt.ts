import { html, type SafeHtml } from '../../html/index.js';
import { readableTime } from './asking.js';

/**
 * A signed receipt as a person reads it: what it records, who signed it, when, until when it can be
 * checked and its reference; the compact JWS itself stays behind a disclosure, for whoever verifies it.
 */

interface ReadableClaims {
  summary: string;
  iss: string;
  iat: number;
  exp: number;
  event_id: string;
}

/** The payload of a compact JWS, if it reads as the claims shown; the signature is the verifier's business. */
function readableClaims(jws: string): ReadableClaims | undefined {
  try {
    const claims = JSON.parse(Buffer.from(jws.split('.')[1] ?? '', 'base64url').toString('utf8')) as Partial<ReadableClaims>;
    const complete = typeof claims.summary === 'string' && typeof claims.iss === 'string' && typeof claims.iat === 'number' && typeof claims.exp === 'number' && typeof claims.event_id === 'string';
    return complete ? (claims as ReadableClaims) : undefined;
  } catch {
    return undefined;
  }
}

const secondsToTime = (seconds: number): string => new Date(seconds * 1000).toISOString();

export function receiptSection(jws: string): SafeHtml {
  const claims = readableClaims(jws);
  return html`<section class="receipt" aria-labelledby="receipt-heading">
<h2 id="receipt-heading">Signed receipt</h2>
<p>The service signed this record of what it accepted.</p>
${claims && html`<dl class="record">
<div><dt>Records</dt><dd>${claims.summary}</dd></div>
<div><dt>Signed by</dt><dd>${claims.iss}</dd></div>
<div><dt>Signed</dt><dd><time datetime="${secondsToTime(claims.iat)}">${readableTime(secondsToTime(claims.iat))}</time></dd></div>
<div><dt>Can be checked until</dt><dd><time datetime="${secondsToTime(claims.exp)}">${readableTime(secondsToTime(claims.exp))}</time></dd></div>
<div><dt>Reference</dt><dd><code>${claims.event_id}</code></dd></div>
</dl>`}
<details><summary>The signed receipt (JWS)</summary><pre>${jws}</pre></details>
</section>`;
}
