import type { HandoffClient, InteractiveSession, Session } from '../client/index.js';
import { answerOf, type Answer } from './answer.js';
import { waitForAnswer, type Waiting } from './wait.js';

/** How the tools and the tasks read a person's answer through the client. */

export interface ToolContext {
  client: HandoffClient;
  now(): Date;
}

/**
 * The answer, its receipt verified first (the service's key, issued for this credential's
 * workspace, bound to this very answer): a receipt that does not verify is a RECEIPT_INVALID
 * error, never passed on.
 */
export async function readAnswer(ctx: ToolContext, id: string, signal: AbortSignal): Promise<Answer> {
  return verifiedAnswer(ctx, await ctx.client.getSession(id, { signal }), signal);
}

/** The answer of a Session the caller has read already (or that a change answered with), its receipt verified as readAnswer's is. */
export async function verifiedAnswer(ctx: ToolContext, session: Session, signal: AbortSignal): Promise<Answer> {
  const answer = answerOf(session, ctx.now());
  const latest = (session as InteractiveSession).responses.at(-1);
  // A decision's receipt is the resolution's: it and every answer's receipt it binds are verified.
  if (answer.receipt !== null && answer.decision) await ctx.client.verifyDecision(session.id, { signal });
  else if (answer.receipt !== null && latest) await ctx.client.verifyReceipt(session.id, latest, { signal });
  return answer;
}

/** The answer after waiting up to `seconds` for it; still pending, it says how to read it later. */
export async function answerAfterWait(ctx: ToolContext, waiting: Waiting, sessionId: string, seconds: number, subject: string): Promise<Answer & { next_step?: string }> {
  await waitForAnswer(ctx.client, waiting, sessionId, seconds, subject);
  const answer = await readAnswer(ctx, sessionId, waiting.signal);
  if (answer.status !== 'pending') return answer;
  return { ...answer, next_step: `Not answered within ${seconds} s: call get_answer with session_id ${sessionId} to read the answer (people may take minutes or hours).` };
}
