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
  responder_link_required: {
    title: 'This link only shows the request',
    message: 'Several people decide it, each through the link mailed to them. Nothing was recorded.',
  },
  responder_answered: { title: 'You have answered already', message: 'Each person answers this request once, and yours is recorded. Nothing more was recorded.' },
  decision_approved: { title: 'This request is decided: approved', message: 'Enough people approved it before your answer arrived. Your answer was not recorded.' },
  decision_vetoed: { title: 'This request is decided: vetoed', message: 'Someone vetoed it before your answer arrived. Your answer was not recorded.' },
};

/**
 * The words for a refusal: its reason's, its own, else its code's; a refusal with none reads as a
 * failure. A reason speaks first where one refusal reads differently by it (a decision's outcome).
 */
export function errorText(code: ErrorCode, refused?: string, reason?: string): ErrorText {
  const own = (key: string | undefined) => (key === undefined ? undefined : REFUSAL_TEXTS[key]);
  return own(reason) ?? own(refused) ?? TEXTS[code] ?? TEXTS.INTERNAL!;
}
