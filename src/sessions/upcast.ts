import { ERASED, erased, type StreamKind, type StoredShape, type Upcaster } from '../../eventstore/index.js';
import { SESSION_CREATED, sessionSealing } from './events.js';

/**
 * The Session streams' older shapes, as today's:
 * - session.created before automatic deletion was released carries no `auto_purge`: false.
 * - An owner command's idempotency mark is sealed in newer events' metadata and in the clear in
 *   older ones; read, it is the clear mark either way (ERASED once the Session's key is destroyed).
 */
export const upcastSessionEvent: Upcaster = (stored, open) => {
  let current: StoredShape = stored;
  if (stored.type === SESSION_CREATED && !('auto_purge' in stored.data)) current = { ...current, data: { ...current.data, auto_purge: false } };
  const { idempotency } = stored.metadata;
  if (typeof idempotency === 'string' && open) {
    const mark = open(idempotency);
    if (erased(mark)) return ERASED;
    current = { ...current, metadata: { ...current.metadata, idempotency: mark as StoredShape['metadata'][string] } };
  }
  return current;
};

/** How Session streams are stored and read: what every fold of them shares. */
export const sessionStreams: StreamKind = { sealed: sessionSealing, upcast: upcastSessionEvent };
