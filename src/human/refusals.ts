import type { RefusalTable } from '../http/refusal.js';
import { NOT_SAME_ORIGIN } from '../http/sameOrigin.js';

/** What the human link refuses of the form itself, before the Sessions decider is asked. */
export type FormRefusal =
  | { refused: 'not_same_origin' }
  | { refused: 'form_not_urlencoded' }
  /** A field twice, a field the page does not send, one missing or malformed: `problem` says which. */
  | { refused: 'form_malformed'; problem: string };

export const FORM_REFUSALS: RefusalTable<FormRefusal> = {
  not_same_origin: NOT_SAME_ORIGIN,
  form_not_urlencoded: { status: 415, code: 'INVALID_SCHEMA', message: 'The form must be sent as application/x-www-form-urlencoded.' },
  form_malformed: { status: 400, code: 'INVALID_SCHEMA', message: ({ problem }) => problem },
};
