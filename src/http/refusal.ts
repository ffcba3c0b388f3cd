import { ApiError, type ErrorCode } from './errors.js';

/**
 * A refusal as a capability's decision returns it: what happened (`refused`), and whatever its
 * message needs. A limit says when it admits one more.
 */
export interface Refusal {
  readonly refused: string;
  readonly retryAfterSeconds?: number;
}

/** How one refusal answers over HTTP: its status, error code, message and `reason`, if any. */
export interface RefusalAnswer<R extends Refusal = Refusal> {
  status: number;
  code: ErrorCode;
  message: string | ((refusal: R) => string);
  reason?: string | ((refusal: R) => string | undefined);
  /** The envelope's `details`, made from the refusal: what the caller acts on besides the code. */
  details?: (refusal: R) => Record<string, string>;
  /**
   * What it means in the contract document, where a route that can answer it says so; without it
   * the message says it (a message made from the refusal's details needs one).
   */
  meaning?: string;
}

/**
 * A capability's refusals, each keyed by what happened, not by code: the same code can answer with
 * different statuses (a stale revision is 412 to an owner's If-Match, 409 to a person's form). Each
 * capability declares its own table beside its decisions; the edge knows only the envelope.
 */
export type RefusalTable<R extends Refusal> = { readonly [K in R['refused']]: RefusalAnswer<Extract<R, { refused: K }>> };

export interface RefusalStatus {
  status: number;
  code: ErrorCode;
  message: string;
  reason?: string;
  details?: Record<string, string>;
  headers: Record<string, string>;
}

/** The status, code, message, reason (if any) and headers (Retry-After for a limit) a refusal answers with. */
export function refusalStatus<R extends Refusal>(table: RefusalTable<R>, refusal: R): RefusalStatus {
  const answer = table[refusal.refused as R['refused']] as RefusalAnswer<R>;
  const headers: Record<string, string> = refusal.retryAfterSeconds === undefined ? {} : { 'retry-after': String(refusal.retryAfterSeconds) };
  const message = typeof answer.message === 'function' ? answer.message(refusal) : answer.message;
  const reason = typeof answer.reason === 'function' ? answer.reason(refusal) : answer.reason;
  const details = answer.details?.(refusal);
  return { status: answer.status, code: answer.code, message, ...(reason === undefined ? {} : { reason }), ...(details === undefined ? {} : { details }), headers };
}

/** A refusal as the envelope's error, for a route to throw. */
export function refusalError<R extends Refusal>(table: RefusalTable<R>, refusal: R): ApiError {
  const { status, code, message, reason, details, headers } = refusalStatus(table, refusal);
  return new ApiError(status, code, message, reason, headers, refusal.refused, details);
}

/**
 * The service's refusals are every capability's own tables together, and a name means one thing
 * in all of them: two capabilities answering one name differently is a mistake, refused at start.
 * (A route may answer another capability's refusals, through that capability's table.)
 */
export function assertOneMeaning(tables: ReadonlyArray<Readonly<Record<string, RefusalAnswer<never>>>>): void {
  const seen = new Map<string, RefusalAnswer<never>>();
  for (const table of tables) {
    for (const [refused, answer] of Object.entries(table)) {
      if ((seen.get(refused) ?? answer) !== answer) throw new Error(`The refusal ${refused} is declared by two capabilities.`);
      seen.set(refused, answer);
    }
  }
}

/** What an answer means in the contract document; a route cannot declare one that says nothing. */
export function meaningOf(answer: RefusalAnswer<never>): string {
  const meaning = answer.meaning ?? (typeof answer.message === 'string' ? answer.message : undefined);
  if (meaning === undefined) throw new Error(`The refusal ${answer.code} (${answer.status}) has a message made from its details and no meaning to declare.`);
  return meaning;
}

/** An answer as one route means it, where the table's general words would say too little. */
export const meaning = <R extends Refusal>(answer: RefusalAnswer<R>, text: string): RefusalAnswer<R> => ({ ...answer, meaning: text });

/** Whether a route that declares `answers` may answer `error`: one of them has its status and code. */
export const declares = (answers: readonly RefusalAnswer<never>[], error: Pick<ApiError, 'status' | 'code'>): boolean =>
  answers.some((answer) => answer.status === error.status && answer.code === error.code);
