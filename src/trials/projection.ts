import { UNSEALED, eventOf, type Projection, type RecordedEvent, type UnitOfWork } from '../../eventstore/index.js';
import { SESSION_PURGED } from '../sessions/index.js';
import {
  TRIAL_ADMITTED,
  TRIAL_EVENT_TYPES,
  TRIAL_SESSION_CREATED,
  TRIAL_STARTED,
  workspaceOfTrialStream,
  type TrialAdmitted,
  type TrialEvent,
} from './events.js';
import * as sql from './sql.js';

/**
 * Trials, their Sessions' deadlines and the admissions ledger, written inline: the creating unit
 * of work reads them back for the limits, and the next request finds the trial by its credential.
 * A purged Session leaves the trial's rows with its purge.
 */
export const trialsProjection: Projection = {
  name: 'trials',
  tables: ['trials', 'trial_sessions', 'trial_admissions'],
  eventTypes: [...TRIAL_EVENT_TYPES, SESSION_PURGED],
  foldsAcrossStreams: true,
  async apply(uow: UnitOfWork, events: readonly RecordedEvent[]) {
    for (const recorded of events) {
      if (recorded.type === SESSION_PURGED) {
        await uow.query(sql.FORGET_SESSION, [recorded.streamId]);
        continue;
      }
      const event = eventOf<TrialEvent | TrialAdmitted>(UNSEALED, recorded);
      switch (event.type) {
        case TRIAL_ADMITTED:
          await uow.query(sql.INSERT_ADMISSION, [event.workspace_id, event.client, event.at]);
          break;
        case TRIAL_STARTED:
          await uow.query(sql.INSERT_TRIAL, [event.workspace_id, event.credential_hash, event.at, event.trial_expires_at]);
          break;
        case TRIAL_SESSION_CREATED:
          await uow.query(sql.INSERT_SESSION, [event.session_id, workspaceOfTrialStream(recorded.streamId), event.at, event.action_expires_at, event.result_available_until]);
          break;
      }
    }
  },
};
