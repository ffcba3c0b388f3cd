import { randomBytes } from 'node:crypto';
import { rowsPart, type RowsStatement } from '../../eventstore/index.js';
import { INSERT_FEED } from '../../src/feed/sql.js';
import { INSERT_RESPONDER_LINKS, INSERT_REVISIONS, UPSERT_VIEWS } from '../../src/sessions/sql.js';
import { CURRENT_ENDPOINT } from '../../src/webhooks/sql.js';
import type { StoreSample } from './liveStore.js';

/**
 * How each statement of the service is explained: the parameters it is run with, drawn from a
 * clone in the middle of the grown store (as the service would run it on that store), or why it
 * has no plan to guard. Every exported statement of every sql.ts must be here, and everything here
 * must be a statement: the guard fails on a statement without a sample, so a statement is guarded
 * the day it is written.
 */

type Args = unknown[] | ((s: StoreSample) => unknown[]);

export type Sample =
  /** Explained with these parameters; a builder is called with `args` first (values of its own, or the store's). */
  | { params: (s: StoreSample) => unknown[]; args?: Args; wholeTable?: undefined }
  /** Explained, and allowed to read whole tables: its purpose is to read all of it. */
  | { params: (s: StoreSample) => unknown[]; args?: Args; wholeTable: string }
  /** Not explained, and why (DDL, session settings, not a statement at all). */
  | { unplanned: string };

const HOUR = 3_600_000;
const ago = (s: StoreSample, ms: number) => new Date(s.now.getTime() - ms);
const later = (s: StoreSample, ms: number) => new Date(s.now.getTime() + ms);
const newId = (prefix: string) => `${prefix}_01${randomBytes(12).toString('hex').toUpperCase().slice(0, 24)}`;
const hex64 = () => randomBytes(32).toString('hex');
const digest = () => randomBytes(32).toString('base64url');

/** A row of each statement of rows. */
const feedRow = (s: StoreSample) => ({ workspace_id: s.session.workspaceId, transaction_id: null, session_id: s.open.id, stream_version: s.open.version + 1 });
const viewRow = (s: StoreSample) => ({
  session_id: s.open.id,
  workspace_id: s.session.workspaceId,
  mode: 'interactive',
  status: 'active',
  revision: 2,
  event_count: 1,
  etag: '"2.1"',
  body: '{}',
  link_hash: hex64(),
  link_expires_at: later(s, 720 * HOUR),
  created_at: s.now,
  updated_at: s.now,
  client_reference: digest(),
});
const revisionRow = (s: StoreSample) => ({ session_id: s.open.id, revision: 2, body: '{}' });
const linkRow = (s: StoreSample) => ({ link_hash: hex64(), session_id: s.open.id, responder_id: newId('rsp') });

/**
 * Both forms of a statement of rows (`NAME.one` and `NAME.many`) with one row: the one-row form's
 * parameters as the service makes them (rowsPart), the other's as a JSON array of it.
 */
const rowsSamples = (id: string, statement: RowsStatement, row: (s: StoreSample) => object): Record<string, Sample> => ({
  [`${id}.one`]: { params: (s) => rowsPart(statement, [row(s)]).params },
  [`${id}.many`]: { params: (s) => [JSON.stringify([row(s)])] },
});

export const SAMPLES: Record<string, Sample> = {
  // The event store.
  'eventstore/sql.ts#APPEND': {
    params: (s) => [s.open.id, s.open.version, s.now, newId('evt'), 'revision.published', '{"revision":2}', '{}', s.open.head, hex64()],
  },
  'eventstore/sql.ts#APPEND_RUN': {
    params: (s) => [s.open.id, s.open.version, s.now, [newId('evt')], ['revision.published'], ['{"revision":2}'], ['{}'], [s.open.head], [hex64()]],
  },
  'eventstore/sql.ts#LINK_AT': { params: (s) => [s.session.id, s.session.version] },
  'eventstore/sql.ts#READ_STREAM': { params: (s) => [s.session.id] },
  'eventstore/sql.ts#LOCK_STREAM': { params: (s) => [s.session.id] },
  'eventstore/sql.ts#STREAM_HEAD': { params: (s) => [s.account.signInStream] },
  'eventstore/sql.ts#READ_STREAMS': { params: (s) => [[s.session.id, s.delivery.streamId]] },
  'eventstore/sql.ts#READ_EVENT': { params: (s) => [s.session.responseEventId] },
  'eventstore/sql.ts#streamReadJoins': { unplanned: 'a part of the statements that read streams (READ_STREAMS, answerLoad), planned with them' },
  'eventstore/sql.ts#keyJoin': { unplanned: 'a part of the statements that read a row sealed with its stream key (VIEW_BY_ID, REVISION_BY_ID, READABLE_SESSION), planned with them' },
  'eventstore/sql.ts#READ_ALL': { params: (s) => [s.log.transactionId, s.log.globalPosition, 500] },
  'eventstore/sql.ts#HORIZON': { params: () => [] },
  // Read through a binary COPY, which takes no parameters: its values are literals.
  'eventstore/sql.ts#READ_BY_STREAM': { args: (s) => [s.log.horizon, { streamId: s.session.id, streamVersion: 1 }, 5_000, s.open.id], params: () => [] },
  // A rebuild of a projection that folds across streams reads every event of its types below the horizon, by design.
  'eventstore/sql.ts#READ_TYPES_BELOW': {
    params: (s) => [s.log.horizon, '0', '0', ['trial.started', 'trial.session_created'], 5_000],
    wholeTable: 'rebuild: every event of its types, in log order',
  },
  'eventstore/sql.ts#STREAM_ID_BOUNDS': { params: () => [] },
  'eventstore/sql.ts#NEWEST_POSITION': { params: () => [] },
  'eventstore/sql.ts#READ_AT': { params: (s) => [s.log.globalPosition] },
  'eventstore/sql.ts#LINKED_AT': { params: (s) => [[s.log.globalPosition, s.log.globalPosition]] },
  'eventstore/sql.ts#READ_ALL_VISIBLE': { params: (s) => [s.log.transactionId, s.log.globalPosition, 5_000] },
  'eventstore/sql.ts#VERIFY': { params: () => [], wholeTable: 'verify: every link of the log' },
  'eventstore/sql.ts#VERIFY_STREAM': { params: (s) => [s.session.id] },
  'eventstore/sql.ts#LOG_EPOCH_ADVANCE': { params: () => [] },
  'eventstore/sql.ts#KEY_GET': { params: (s) => [[s.session.id]] },
  'eventstore/sql.ts#KEY_INSERT': { params: (s) => [s.session.id, randomBytes(96), 'initial'] },
  'eventstore/sql.ts#KEY_WRITE': { params: () => ['stream-new-in-the-plan', randomBytes(96), 'initial'] },
  'eventstore/sql.ts#KEY_IDS_IN_USE': { params: () => [] },
  'eventstore/sql.ts#KEYS_WRAPPED_BY': { params: (s) => ['initial', s.session.id, 1_000] },
  'eventstore/sql.ts#REWRAP_BATCH': { params: (s) => ['initial', s.session.id, 1_000] },
  'eventstore/sql.ts#REWRAP': { params: (s) => [[s.session.id], [randomBytes(96)], 'k2', 'initial', s.session.id, s.open.id] },
  'eventstore/sql.ts#ANY_EVENT': { params: () => [] },
  'eventstore/sql.ts#KEY_DESTROY': { params: (s) => [s.session.id] },
  'eventstore/sql.ts#NOTIFY': { params: (s) => [['svc_events'], [s.session.id]] },
  'eventstore/sql.ts#EXPORT_CURSOR': { args: ['plan_guard_cursor'], params: () => [], wholeTable: 'export: the whole log' },
  'eventstore/sql.ts#EXPORT_STREAMS_CURSOR': { args: ['plan_guard_cursor'], params: (s) => [[s.session.id, s.delivery.streamId]] },
  // From the start of the log it reads every stream's head, by design; a checkpointer reads what changed since its last.
  'eventstore/sql.ts#HEADS_CURSOR': { args: ['plan_guard_cursor'], params: (s) => [s.log.transactionId, s.log.globalPosition] },
  'eventstore/sql.ts#HORIZON_END': { params: () => [] },

  // The projection runner.
  'projections/sql.ts#CHECKPOINT_ENSURE': { params: () => ['purge_schedule'] },
  'projections/sql.ts#CHECKPOINT_EXISTS': { params: () => ['purge_schedule'] },
  'projections/sql.ts#CHECKPOINT_CLAIM': { params: () => ['purge_schedule'] },
  'projections/sql.ts#CHECKPOINT_LOCK': { params: () => ['purge_schedule'] },
  'projections/sql.ts#CHECKPOINT_SAVE': { params: (s) => ['purge_schedule', s.log.transactionId, s.log.globalPosition] },
  'projections/sql.ts#NEWEST_EVENT': { params: () => [] },
  'projections/sql.ts#CHECKPOINT_REACHED': { params: (s) => ['purge_schedule', s.log.transactionId, s.log.globalPosition] },
  'projections/sql.ts#TRY_REBUILD_LOCK': { params: () => [] },
  'projections/sql.ts#quoteIdent': { unplanned: 'quotes a name: not a statement' },
  'projections/sql.ts#COLUMN_TYPES': { params: () => ['public.session_views'] },
  'projections/sql.ts#dropRebuildSchema': { unplanned: 'DDL of a rebuild' },
  'projections/sql.ts#createRebuildSchema': { unplanned: 'DDL of a rebuild' },
  'projections/sql.ts#TABLE_OPTIONS': { params: () => ['public.session_views'] },
  'projections/sql.ts#tableShapedLike': { unplanned: 'DDL of a rebuild' },
  'projections/sql.ts#useRebuildTables': { unplanned: 'a setting of a rebuild' },
  'projections/sql.ts#lockLiveTable': { unplanned: 'a table lock of a rebuild' },
  'projections/sql.ts#dropLiveTable': { unplanned: 'DDL of a rebuild' },
  'projections/sql.ts#promoteTable': { unplanned: 'DDL of a rebuild' },
  'projections/sql.ts#copyKeptColumns': { unplanned: "a rebuild's swap: copies a column of every live row into its rebuilt copy, the whole table by design" },
  'projections/sql.ts#INDEXES': { params: () => ['public.session_views'] },
  'projections/sql.ts#rebuildTable': { unplanned: "names a table's copy: not a statement" },
  'projections/sql.ts#analyzeCopy': { unplanned: 'maintenance of a rebuild' },
  'projections/sql.ts#copyIndex': { unplanned: 'DDL of a rebuild' },

  // Accounts.
  'src/accounts/sql.ts#INSERT_LINK': { params: (s) => [newId('lnk'), s.account.address, s.account.client, digest(), s.now, later(s, HOUR / 4)] },
  'src/accounts/sql.ts#INSERT_ACCOUNT': { params: (s) => [newId('acc'), newId('wks'), digest(), 'grown@example.com', s.now] },
  'src/accounts/sql.ts#INSERT_SESSION': { params: (s) => [newId('asn'), s.account.id, digest(), s.now, later(s, 24 * HOUR)] },
  'src/accounts/sql.ts#END_SESSION': { params: (s) => [s.account.sessionId, s.now] },
  'src/accounts/sql.ts#INSERT_KEY': { params: (s) => [newId('key'), s.account.id, digest(), 'svc_sk_…abcdef', 'ci', s.now, null] },
  'src/accounts/sql.ts#REVOKE_KEY': { params: (s) => [s.account.keyId, s.now] },
  'src/accounts/sql.ts#KEY_USED': { params: (s) => [s.account.keyId, s.now] },
  'src/accounts/sql.ts#INSERT_CLAIM': { params: (s) => [s.trial.workspaceId, s.account.id, s.now] },
  'src/accounts/sql.ts#LINK_BY_TOKEN': { params: (s) => [s.account.linkTokenHash] },
  'src/accounts/sql.ts#CLIENT_LINKS_SINCE': { params: (s) => [s.account.client, ago(s, HOUR)] },
  'src/accounts/sql.ts#LIVE_SESSION': { params: (s) => [s.account.sessionTokenHash, s.now] },
  'src/accounts/sql.ts#ACCOUNT_OF_SESSION': { params: (s) => [s.account.sessionId] },
  'src/accounts/sql.ts#KEYS_OF_ACCOUNT': { params: (s) => [s.account.id] },
  'src/accounts/sql.ts#CLAIMS_OF_ACCOUNT': { params: (s) => [s.account.id] },
  'src/accounts/sql.ts#KEY_BY_HASH': { params: (s) => [s.account.keyHash] },
  'src/accounts/sql.ts#CLAIMED_SESSION_READABLE': { params: (s) => [s.account.id, s.trial.workspaceId, s.trial.sessionId, s.now] },

  // The audit.
  'src/audit/sql.ts#DELIVERY_STREAMS_OF_SESSION': { params: (s) => [s.session.id] },
  'src/audit/sql.ts#NEWEST_CHECKPOINT': { params: () => ['log-checkpoints'] },
  'src/audit/sql.ts#TRY_LOCK_CHECKPOINTS': { params: () => [] },
  'src/audit/sql.ts#LOCK_CHECKPOINTS': { params: () => [] },
  'src/audit/sql.ts#LOCK_TREE': { params: () => [] },
  'src/audit/sql.ts#TREE_END': { params: () => [] },
  'src/audit/sql.ts#INSERT_LEAVES': { params: (s) => [[s.log.globalPosition], [1_000_000]] },
  'src/audit/sql.ts#INSERT_NODES': { params: () => [[0, 1], [1_000_000, 500_000], [randomBytes(32), randomBytes(32)]] },
  'src/audit/sql.ts#READ_NODES': { params: () => [[19, 18, 0], [0, 2, 1_000_001]] },
  'src/audit/sql.ts#LEAF_OF_EVENT': { params: (s) => [s.session.responseEventId, s.session.id] },

  // What an operator is shown.
  'src/ops/sql.ts#PROJECTION_LAG': { params: () => [['purge_schedule']] },

  // The human link.

  // Purge.
  // Quotas.
  'src/quotas/sql.ts#INSERT_USE': { params: (s) => [s.account.workspaceId, 'session', s.now, 2] },
  'src/quotas/sql.ts#LIMIT_EDGES': { params: (s) => [s.account.workspaceId, 'session', ['sessions_per_minute', 'sessions_per_day'], [60, 5_000]] },

  'src/workspaces/sql.ts#UPSERT_PROFILE': { params: (s) => [s.account.workspaceId, 'Acme Support', s.now] },
  'src/workspaces/sql.ts#PROFILE': { params: (s) => [s.account.workspaceId] },
  'src/purge/sql.ts#UPSERT_SCHEDULE': { params: (s) => [[s.open.id], [s.session.workspaceId], [s.now], [later(s, 1440 * HOUR)], ['retention'], [later(s, 720 * HOUR)], []] },
  'src/purge/sql.ts#CLAIM_DUE': { params: (s) => [s.now, []] },
  'src/purge/sql.ts#CLAIM_LAPSED': { params: (s) => [s.now, []] },
  'src/purge/sql.ts#NEXT_DUE': { params: () => [] },
  'src/purge/sql.ts#BACKLOG': { params: (s) => [s.now, 60_000] },

  // Sessions.
  // The workspace event feed.
  ...rowsSamples('src/feed/sql.ts#INSERT_FEED', INSERT_FEED, feedRow),
  'src/feed/sql.ts#FORGET_FEED': { params: (s) => [[s.session.id]] },
  'src/feed/sql.ts#FEED_PAGE': { params: (s) => [s.session.workspaceId, '0', '', 0, 100] },
  ...rowsSamples('src/sessions/sql.ts#UPSERT_VIEWS', UPSERT_VIEWS, viewRow),
  ...rowsSamples('src/sessions/sql.ts#INSERT_REVISIONS', INSERT_REVISIONS, revisionRow),
  'src/sessions/sql.ts#FORGET_SESSIONS': { params: (s) => [[s.session.id]] },
  'src/sessions/sql.ts#WORKSPACE_BY_ID': { params: (s) => [s.session.id] },
  'src/sessions/sql.ts#SESSION_BY_REFERENCE': { params: (s) => [s.session.workspaceId, digest()] },
  'src/sessions/sql.ts#SESSION_PAGE': { params: (s) => [s.session.workspaceId, 'infinity', '', 50] },
  'src/sessions/sql.ts#SESSION_PAGE_BY_STATUS': { params: (s) => [s.session.workspaceId, 'infinity', '', 50, 'active'] },
  'src/sessions/sql.ts#SESSION_PAGE_BY_REFERENCE': { params: (s) => [s.session.workspaceId, 'infinity', '', 50, digest()] },
  'src/sessions/sql.ts#VIEW_BY_ID': { params: (s) => [s.session.id] },
  'src/sessions/sql.ts#REVISION_BY_ID': { params: (s) => [s.session.id, 2] },
  'src/sessions/sql.ts#SESSION_BY_LINK': { params: (s) => [s.session.linkHash] },
  ...rowsSamples('src/sessions/sql.ts#INSERT_RESPONDER_LINKS', INSERT_RESPONDER_LINKS, linkRow),
  // As the service builds it: the webhooks reaction's read of the current endpoint beside the Session.
  'src/sessions/sql.ts#answerLoad': { args: [[CURRENT_ENDPOINT]], params: (s) => [s.session.linkHash] },

  // Notifications.
  'src/notifications/sql.ts#DROP_UNOWED_JOBS': {
    params: (s) => [[s.open.id], JSON.stringify([{ session_id: s.open.id, responder_id: newId('rsp'), kind: 'notify', revision: 1, due_at: s.now }])],
  },
  'src/notifications/sql.ts#INSERT_OWED_JOBS': {
    params: (s) => [JSON.stringify([{ session_id: s.open.id, responder_id: newId('rsp'), kind: 'notify', revision: 1, due_at: s.now }])],
  },
  'src/notifications/sql.ts#CLAIM_DUE': { params: (s) => [s.now, 32, 60_000] },
  'src/notifications/sql.ts#RETRY_AT': { params: (s) => [s.open.id, newId('rsp'), 'notify', 1, later(s, 60_000)] },
  'src/notifications/sql.ts#DROP_JOB': { params: (s) => [s.open.id, newId('rsp'), 'reminder', 1] },
  'src/notifications/sql.ts#NEXT_DUE': { params: () => [] },
  'src/notifications/sql.ts#SLACK_WEBHOOK_UPSERT': { params: (s) => [s.account.workspaceId, `v1.${digest()}`, s.now] },
  'src/notifications/sql.ts#SLACK_WEBHOOK_DELETE': { params: (s) => [s.account.workspaceId] },
  'src/notifications/sql.ts#SLACK_WEBHOOK': { params: (s) => [s.account.workspaceId] },

  // Trials.
  'src/trials/sql.ts#INSERT_ADMISSION': { params: (s) => [newId('wks'), digest(), s.now] },
  'src/trials/sql.ts#INSERT_TRIAL': { params: (s) => [newId('wks'), digest(), s.now, later(s, 24 * HOUR)] },
  'src/trials/sql.ts#INSERT_SESSION': { params: (s) => [newId('ses'), s.trial.workspaceId, s.now, later(s, HOUR), later(s, 25 * HOUR)] },
  'src/trials/sql.ts#FORGET_SESSION': { params: (s) => [s.trial.sessionId] },
  'src/trials/sql.ts#TRIAL_BY_CREDENTIAL': { params: (s) => [s.trial.credentialHash] },
  'src/trials/sql.ts#ADMISSIONS_SINCE': { params: (s) => [ago(s, HOUR)] },
  'src/trials/sql.ts#SESSION_STATUSES': { params: (s) => [[s.trial.sessionId]] },
  'src/trials/sql.ts#READABLE_SESSION': { params: (s) => [s.trial.sessionId, s.trial.workspaceId, s.now] },
  'src/trials/sql.ts#TRIAL_FOR_CLAIM': { params: (s) => [s.trial.credentialHash] },

  // Webhooks.
  'src/webhooks/sql.ts#ENDPOINT_MARK_REPLACED': { params: (s) => [s.session.workspaceId, s.now] },
  'src/webhooks/sql.ts#ENDPOINT_INSERT': { params: (s) => [newId('whe'), s.session.workspaceId, 'https://hooks.example.test/', s.now, ['response.accepted']] },
  'src/webhooks/sql.ts#ENDPOINT_SUBSCRIBED': { params: (s) => [s.delivery.endpointId, ['response.accepted', 'session.expired']] },
  'src/webhooks/sql.ts#ENDPOINT_VERIFIED': { params: (s) => [s.delivery.endpointId, s.now, later(s, 720 * HOUR)] },
  'src/webhooks/sql.ts#SECRET_RETIRE': { params: (s) => [s.delivery.kid, later(s, 24 * HOUR)] },
  'src/webhooks/sql.ts#SECRET_INSERT': { params: (s) => [newId('whs'), s.session.workspaceId, 'v1.sealed', 'stream', s.now] },
  'src/webhooks/sql.ts#DELIVERY_UPSERT': {
    params: (s) => [
      s.delivery.id,
      s.session.workspaceId,
      s.session.id,
      s.session.responseEventId,
      s.delivery.endpointId,
      'accepted',
      'delivered',
      s.now,
      later(s, 24 * HOUR),
      null,
      s.now,
      'delivered',
      '[]',
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    ],
  },
  'src/webhooks/sql.ts#FORGET_SESSION_DELIVERIES': { params: (s) => [[s.session.id]] },
  'src/webhooks/sql.ts#CURRENT_ENDPOINT': { params: (s) => [s.session.workspaceId] },
  'src/webhooks/sql.ts#CURRENT_ENDPOINT_SHARED': { params: (s) => [s.session.workspaceId] },
  'src/webhooks/sql.ts#SECRETS': { params: (s) => [s.session.workspaceId] },
  'src/webhooks/sql.ts#SECRET_RESEAL': { params: (s) => [s.delivery.kid, 'v1.sealed'] },
  'src/webhooks/sql.ts#SECRETS_SEALED_BY_INITIAL': { params: () => ['', 500] },
  'src/webhooks/sql.ts#SECRETS_SEALED_BY_INITIAL_COUNT': { params: () => [] },
  'src/webhooks/sql.ts#DELIVERY_COUNTS': { params: (s) => [s.session.workspaceId] },
  'src/webhooks/sql.ts#CLAIM_DUE': { params: (s) => [s.now, 10, 'dispatcher-1', 30_000] },
  'src/webhooks/sql.ts#LOCK_LEASE': { params: (s) => [s.delivery.id, 'dispatcher-1'] },
  'src/webhooks/sql.ts#RELEASE_LEASE': { params: (s) => [s.delivery.id, 'dispatcher-1'] },
  'src/webhooks/sql.ts#NEXT_DUE': { params: () => [] },
  'src/webhooks/sql.ts#LOCK_PENDING_OF_ENDPOINT': { params: (s) => [s.delivery.endpointId] },
  'src/webhooks/sql.ts#LOCK_EVENT_QUEUE': { params: (s) => [s.session.responseEventId] },
  'src/webhooks/sql.ts#LOCK_PENDING_OF_SESSION': { params: (s) => [s.session.id] },
  'src/webhooks/sql.ts#LOCK_PENDING_OF_EVENT': { params: (s) => [s.session.id, s.session.responseEventId] },
  'src/webhooks/sql.ts#SESSION_DELIVERIES': { params: (s) => [s.session.id] },
  'src/webhooks/sql.ts#DELIVERY_QUEUE': { params: () => [] },
};

/**
 * How each trigger function is exercised: the statement that fires it, run (and rolled back) with
 * its sample, every statement inside the function planned as it runs; or why it plans nothing.
 */
export const TRIGGERS: Record<string, { fires: string } | { unplanned: string }> = {
  events_chain: { fires: 'eventstore/sql.ts#APPEND' },
  events_append_only: { unplanned: 'refuses the change; reads nothing' },
  log_tree_append_only: { unplanned: 'refuses the change; reads nothing' },
};
