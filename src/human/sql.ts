/** Every statement of the human link. */

import { prepared, STREAM_READ_COLUMNS, streamReadJoins } from '../../eventstore/index.js';

/**
 * What a submission reads, in one round trip, in its unit of work: the Session a link opens (by the
 * token's hash, in the Sessions capability's view, with the link's expiry), its stream with its
 * data key, and its workspace's current webhook endpoint (the webhooks capability's view),
 * share-locked until commit, so that a delivery queued with the answer goes where its receipt says
 * (a PUT that replaces the endpoint waits, then ends that job with the others). No row: the link
 * opens nothing.
 */
export const SUBMISSION_READ = prepared(
  'submission_read',
  `SELECT v.link_expires_at, w.endpoint_id, w.url, w.created_at AS endpoint_created_at, w.verified_at, w.verification_expires_at,
          v.session_id AS requested, ${STREAM_READ_COLUMNS}
     FROM session_views v
     LEFT JOIN LATERAL (
       SELECT endpoint_id, url, created_at, verified_at, verification_expires_at
         FROM webhook_endpoints WHERE workspace_id = v.workspace_id AND replaced_at IS NULL
          FOR SHARE
     ) w ON true ${streamReadJoins('v.session_id')}
    WHERE v.link_hash = $1
    ORDER BY e.stream_version`,
);
