import type { JsonObject } from '../../../eventstore/index.js';
import { isoOrNull } from '../../clock.js';
import { isVerified, type Endpoint } from './endpoint.js';
import type { Subscribable } from './events.js';

/** The endpoint as the webhook routes show it, from folded state and read-model rows. */

export interface EndpointBody {
  id: string;
  url: string;
  status: 'pending' | 'verified';
  created_at: string;
  verified_at: string | null;
  verification_expires_at: string | null;
  events: readonly Subscribable[];
}

/** The endpoint object; a lapsed verification reads as pending. */
export function endpointBody(endpoint: Endpoint, now: Date): EndpointBody {
  return {
    id: endpoint.id,
    url: endpoint.url,
    status: isVerified(endpoint, now) ? 'verified' : 'pending',
    created_at: endpoint.createdAt,
    verified_at: endpoint.verifiedAt,
    verification_expires_at: endpoint.verificationExpiresAt,
    events: endpoint.events,
  };
}

/** Endpoint rows hold timestamptz columns; the view takes them as they come. */
export interface EndpointRow {
  endpoint_id: string;
  url: string;
  created_at: Date;
  verified_at: Date | null;
  verification_expires_at: Date | null;
  events: Subscribable[];
}

export const endpointOfRow = (row: EndpointRow): Endpoint => ({
  id: row.endpoint_id,
  url: row.url,
  createdAt: row.created_at.toISOString(),
  verifiedAt: isoOrNull(row.verified_at),
  verificationExpiresAt: isoOrNull(row.verification_expires_at),
  events: row.events,
});

/** An endpoint row as a read beside another statement brings it (row_to_json: timestamps as text). */
export const endpointOfJson = (row: JsonObject): Endpoint =>
  endpointOfRow({
    endpoint_id: row.endpoint_id as string,
    url: row.url as string,
    created_at: new Date(row.created_at as string),
    verified_at: row.verified_at === null ? null : new Date(row.verified_at as string),
    verification_expires_at: row.verification_expires_at === null ? null : new Date(row.verification_expires_at as string),
    events: row.events as Subscribable[],
  });
