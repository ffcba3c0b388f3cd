import { ClientError, type HandoffClient } from '../client/index.js';

/**
 * How a tool waits for a person's answer. MCP clients give up on a call they hear nothing of for
 * a minute (the SDK's default request timeout is 60 s; most clients reset it on progress, some
 * never extend it), so a wait is bounded below that and says it is still waiting throughout.
 */

/**
 * The longest a tool waits: under the minute a client gives a call, with room for the reads
 * around the wait. The same bound as the service's on a held request (src/client/waits.ts).
 */

/** How often a waiting tool tells the caller it is still waiting, when the caller asked for progress. */
export const PROGRESS_EVERY_MS = 15_000;

/** One progress notification: `progress` grows with each one, as MCP requires; here, the seconds waited so far. */
export interface Progress {
  progress: number;
  total?: number;
  message: string;
}

export interface Waiting {
  signal: AbortSignal;
  progress(update: Progress): Promise<void>;
}

/**
 * Waits up to `seconds` for the answer to the Session's current revision (for a revision several
 * people decide, its resolution: one person's answer does not end the wait), reporting progress at
 * once (its message names `subject`, for example the link the person needs) and every
 * PROGRESS_EVERY_MS. It ends when the answer comes, when none can come (the link expired
 * included), or at the deadline; the caller then reads what the Session holds.
 */
export async function waitForAnswer(client: HandoffClient, waiting: Waiting, sessionId: string, seconds: number, subject: string): Promise<void> {
  // A caller that has gone away cannot be told anything; its signal ends the wait.
  const report = (waited: number, message: string) => waiting.progress({ progress: waited, total: seconds, message }).catch(() => undefined);
  await report(0, `Waiting up to ${seconds} s for ${subject}`);
  let waited = 0;
  const ticker = setInterval(() => {
    waited += PROGRESS_EVERY_MS / 1000;
    void report(waited, `Still waiting (${waited} s of ${seconds} s) for ${subject}`);
  }, PROGRESS_EVERY_MS);
  try {
    const options = { signal: waiting.signal, timeoutMs: seconds * 1000 };
    const { decision } = await client.getSession(sessionId, { signal: waiting.signal });
    await (decision ? client.waitForDecision(sessionId, options) : client.waitForResponse(sessionId, options));
  } catch (error) {
    if (!(error instanceof ClientError && ['WAIT_TIMEOUT', 'NO_RESPONSE_POSSIBLE', 'LINK_EXPIRED'].includes(error.code))) throw error;
  } finally {
    clearInterval(ticker);
  }
}
