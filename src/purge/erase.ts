import { UsageError, type OperatorCommand } from '../commandLine.js';
import type { ServiceContext } from '../serviceContext.js';
import { isSessionId } from '../sessions/index.js';
import { eraseSession, type Purged } from './commands.js';

/** `erase <session_id>` on the command line: what the operator is told, and the exit code. */
interface EraseResult {
  exitCode: 0 | 1;
  message: string;
}

function done(purged: Purged): string {
  return [
    `erased ${purged.sessionId}: session.purged appended at ${purged.event.at} (reason ${purged.event.reason})`,
    'its data key destroyed (its events stay as ciphertext; the chain still verifies)',
    'its read rows deleted (view, revisions, human link, trial row, delivery jobs)',
    `${purged.deliveriesEnded} pending webhook ${purged.deliveriesEnded === 1 ? 'delivery' : 'deliveries'} ended unsent`,
  ].join('\n  ');
}

/**
 * Purges one Session now, for a data-subject request, through the same purge as the deadline's.
 * Running it again is harmless: it says the Session was already purged and succeeds.
 */
async function erase(ctx: Pick<ServiceContext, 'clock' | 'store' | 'streamKeys'>, sessionId: string): Promise<EraseResult> {
  if (!isSessionId(sessionId)) {
    return { exitCode: 1, message: `${JSON.stringify(sessionId)} is not a Session id (ses_ followed by 26 characters); nothing erased` };
  }
  const outcome = await eraseSession(ctx, sessionId);
  if (!('refused' in outcome)) return { exitCode: 0, message: done(outcome) };
  switch (outcome.refused) {
    case 'already_purged':
      return { exitCode: 0, message: `${sessionId} was already purged at ${outcome.at} (reason ${outcome.reason}); nothing to do` };
    case 'session_not_found':
      return { exitCode: 1, message: `no Session ${sessionId} in this deployment; nothing erased` };
    case 'not_due':
      throw new Error('an erasure is never refused as not due');
  }
}

export const eraseCommand: OperatorCommand = {
  name: 'erase',
  synopsis: 'SESSION_ID',
  summary: 'purge one Session now (a data-subject request); again: says it was purged',
  details: () =>
    'Appends session.purged (reason erasure), destroys its data key and deletes its read rows, beside a\n' +
    'running service. Exit 0 when purged now or before, 1 for an unknown or malformed id.',
  async run(args, open) {
    if (args.length !== 1) throw new UsageError('erase takes one SESSION_ID');
    const erased = await erase(await open(), args[0]!);
    (erased.exitCode === 0 ? console.log : console.error)(erased.message);
    return erased.exitCode;
  },
};
