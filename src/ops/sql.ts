/** What an operator is shown: read from the log and from the owners' projection tables, never written. */

/** Each async projection's checkpoint and how many committed events lie after it. */
export const PROJECTION_LAG = `
SELECT p.name, coalesce(c.global_position, 0)::text AS position,
       (SELECT count(*) FROM events
         WHERE (events.transaction_id, global_position) > (coalesce(c.transaction_id, '0'::xid8), coalesce(c.global_position, 0)))::integer AS behind
  FROM unnest($1::text[]) AS p(name)
  LEFT JOIN projection_checkpoints c ON c.name = p.name
 ORDER BY p.name`;

/** The delivery queue across every workspace (the deliveries projection, src/webhooks). */
export const DELIVERY_QUEUE = `
SELECT count(*) FILTER (WHERE status = 'pending')::integer AS pending,
       count(*) FILTER (WHERE status = 'failed')::integer  AS failed,
       min(created_at) FILTER (WHERE status = 'pending')    AS oldest_pending
  FROM webhook_deliveries`;
