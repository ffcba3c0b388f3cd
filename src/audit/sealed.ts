import { ERASED, type JsonObject, type Opener } from '../../eventstore/index.js';
import { SESSION_EVENT_TYPES, sessionSealing } from '../sessions/index.js';
import { DELIVERY_QUEUED } from '../webhooks/index.js';

/**
 * Where the log keeps content sealed with a Session's data key, for an export that opens it: the
 * Session's own events seal theirs in `sealed`. Delivery jobs queued before their body was
 * rendered at send time kept it in `sealed_body`, under the key of the Session they deliver; new
 * ones hold no content. Webhook signing secrets (sealed with their webhook stream's key, or before
 * with the deployment data key) are never opened for an export.
 */

export interface SealedField {
  field: string;
  /** The stream whose data key sealed it. */
  keyStream: string;
}

const sessionTypes: readonly string[] = SESSION_EVENT_TYPES;

export function sealedFieldsOf(type: string, streamId: string, data: JsonObject): SealedField[] {
  if (sessionTypes.includes(type) && typeof data.sealed === 'string') return [{ field: 'sealed', keyStream: streamId }];
  if (type === DELIVERY_QUEUED && typeof data.sealed_body === 'string' && typeof data.session_id === 'string') {
    return [{ field: 'sealed_body', keyStream: data.session_id }];
  }
  return [];
}

/**
 * Each sealed field opened by the Sessions' sealing scheme (every one is sealed with a Session's
 * key), or the erased marker once its key was destroyed.
 */
export function openedFields(fields: readonly SealedField[], data: JsonObject, openers: ReadonlyMap<string, Opener>): Record<string, unknown> {
  const opened: Record<string, unknown> = {};
  for (const { field, keyStream } of fields) {
    const value = sessionSealing.openSealed(data[field] as string, openers.get(keyStream)!);
    opened[field] = value === ERASED ? { ...ERASED } : value;
  }
  return opened;
}
