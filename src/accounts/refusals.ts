import type { RefusalTable } from '../http/refusal.js';
import { NOT_SAME_ORIGIN } from '../http/sameOrigin.js';
import type { AccountRefusal } from './decide.js';
import { ACCOUNT_LIMITS } from './limits.js';

/** Each refusal of developer accounts, to the JSON route or a page's form, as it answers over HTTP. */
export const ACCOUNT_REFUSALS: RefusalTable<AccountRefusal> = {
  sign_in_unavailable: { status: 503, code: 'SIGN_IN_UNAVAILABLE', message: 'Sign-in is not available: this service has no email configured.' },
  email_invalid: { status: 400, code: 'INVALID_SCHEMA', message: 'That is not a plausible email address.' },
  address_links_used: {
    status: 429,
    code: 'RATE_LIMITED',
    message: `${ACCOUNT_LIMITS.linksPerAddress} sign-in links were sent to this address in the last hour; wait before asking for another.`,
  },
  client_links_used: {
    status: 429,
    code: 'RATE_LIMITED',
    message: `${ACCOUNT_LIMITS.linksPerClient} sign-in links were asked for from this client in the last hour; wait before asking for another.`,
  },
  mail_unconfirmed: {
    status: 503,
    code: 'SERVICE_UNAVAILABLE',
    message: 'The mail provider did not confirm sending the link; it may still arrive, and earlier links still work. Try again later.',
  },
  sign_in_link_invalid: { status: 400, code: 'SIGN_IN_LINK_INVALID', message: 'This sign-in link has expired, was used, or was replaced by a newer one. Ask for a new link.' },
  not_same_origin: NOT_SAME_ORIGIN,
  csrf_invalid: { status: 403, code: 'ACTION_NOT_ALLOWED', message: 'This form is not valid for this browser session; open the page again and send it from there.' },
  form_invalid: { status: 400, code: 'INVALID_SCHEMA', message: 'The form has a field this page does not send, or a field more than once.' },
  key_form_invalid: { status: 400, code: 'INVALID_SCHEMA', message: 'This key form was not issued to this session; reload the page and create the key again.' },
  key_form_expired: {
    status: 400,
    code: 'INVALID_SCHEMA',
    message: `This key form is older than ${ACCOUNT_LIMITS.keyFormMs / 60_000} minutes; create the key again with the fresh form below.`,
  },
  rendered_at_changed: { status: 400, code: 'INVALID_SCHEMA', message: 'The form was changed after it was shown (its time and expiry dates); use the fresh form below.' },
  expiry_not_offered: { status: 400, code: 'INVALID_SCHEMA', message: 'Choose one of the offered expiries: 30, 90 or 365 days, or never.' },
  label_invalid: { status: 400, code: 'INVALID_SCHEMA', message: `A label has at most ${ACCOUNT_LIMITS.labelMax} characters and no control characters.` },
  key_already_created: { status: 409, code: 'KEY_ALREADY_CREATED', message: 'A key was already created from this form; it is in the list below, and its secret is not shown again.' },
  key_limit_reached: {
    status: 409,
    code: 'KEY_LIMIT_REACHED',
    message: `An account has at most ${ACCOUNT_LIMITS.activeKeys} active keys; revoke one before creating another.`,
  },
  key_not_found: { status: 404, code: 'NOT_FOUND', message: 'This account has no such key.' },
  not_a_management_credential: { status: 400, code: 'INVALID_SCHEMA', message: "That is not a trial's management credential (svc_mg_…)." },
  credential_in_url: { status: 400, code: 'INVALID_SCHEMA', message: 'Send the management credential in the form body only, never in a URL.' },
  trial_not_claimable: { status: 404, code: 'TRIAL_NOT_FOUND', message: 'No trial answers to this credential, or it has been deleted.' },
  trial_claimed_by_another: { status: 409, code: 'TRIAL_ALREADY_CLAIMED', message: 'Another account has claimed this trial.' },
};
