import type { ErrorCode } from '../../http/errors.js';

/** What a person reads for each refusal on the human page. The code itself is in data-error-code. */
export interface ErrorText {
  title: string;
  message: string;
}

const TEXTS: Partial<Record<ErrorCode, ErrorText>> = {
  INVALID_SCHEMA: { title: 'The form could not be read', message: 'Open the page again and send the form from there.' },
  ACTION_NOT_FOUND: { title: 'That choice is not on this page', message: 'Open the page again and choose one of its buttons.' },
  SESSION_COMPLETED: { title: 'This request is closed', message: 'It no longer takes answers. Nothing was recorded.' },
  RESPONSE_LIMIT_REACHED: {
    title: 'This step was already answered',
    message: 'It takes one answer, and one was already recorded. Yours was not recorded. Open the page to see what was accepted.',
  },
  IDEMPOTENCY_CONFLICT: {
    title: 'This form was already sent',
    message: 'It was sent before with different answers. Open the page again to see where things stand.',
  },
  PAYLOAD_TOO_LARGE: { title: 'Your answer is too long', message: 'Shorten it and send it again.' },
  SERVICE_UNAVAILABLE: {
    title: 'Answers cannot be accepted right now',
    message: 'Nothing was recorded. Please try again later.',
  },
  INTERNAL: { title: 'Something went wrong', message: 'Your answer may not have been recorded. Open the page again to check.' },
};

/** Refusals that share a code with another and read differently, by what was refused. */
const REFUSAL_TEXTS: Record<string, ErrorText> = {
  not_same_origin: { title: 'This form can only be sent from its own page', message: 'Open the page again and send it from there. Nothing was recorded.' },
  display_session_answer: { title: 'This page takes no answers', message: 'It only shows information.' },
};

/** The words for a refusal: its own, else its code's; a refusal with neither reads as a failure. */
export function errorText(code: ErrorCode, refused?: string): ErrorText {
  return (refused === undefined ? undefined : REFUSAL_TEXTS[refused]) ?? TEXTS[code] ?? TEXTS.INTERNAL!;
}
