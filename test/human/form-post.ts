import { formStrings } from '../../src/human/form.js';
import { own } from '../../src/human/own.js';
import { fieldsOf, type FieldValue, type InteractiveInteraction } from '../../src/sessions/index.js';
import type { TestApp } from '../support/app.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' } as const;

/** The Fetch Metadata Chromium sends with a form that the human page itself posts. */
export const SAME_ORIGIN = { 'sec-fetch-site': 'same-origin' } as const;

/** The headers Chromium sends with a form that the human page itself posts. */
export const PAGE_FORM_HEADERS = { ...FORM, ...SAME_ORIGIN } as const;

/** Posts a form body to the human link as a browser does, with these Fetch Metadata or Origin headers. */
export function postForm(t: TestApp, token: string, body: string, headers: Record<string, string> = SAME_ORIGIN) {
  return t.app.inject({ method: 'POST', url: `/s/${token}`, headers: { ...FORM, ...headers }, payload: body });
}

/** The error code a human page carries, undefined on a page that is no error. */
export const errorCodeOf = (page: string): string | undefined => /<main data-error-code="([A-Z_]+)"/.exec(page)?.[1];

export interface FormAnswer {
  clientEventId: string;
  revision: number;
  actionId: string;
  data: Readonly<Record<string, FieldValue>>;
}

/**
 * The body the rendered form (src/human/render/surface.ts) posts for typed answers, in a browser's
 * order: the two hidden inputs, each field's strings in component order (a list repeats its name;
 * an unticked box or an unanswered field sends nothing), then the pressed button's action_id.
 */
export function formBody(interaction: InteractiveInteraction, answer: FormAnswer): string {
  const body = new URLSearchParams([
    ['client_event_id', answer.clientEventId],
    ['surface_revision', String(answer.revision)],
  ]);
  for (const field of fieldsOf(interaction)) {
    const value = own(answer.data, field.name);
    if (value !== undefined) for (const text of formStrings(value)) body.append(`data.${field.name}`, text);
  }
  body.append('action_id', answer.actionId);
  return body.toString();
}
