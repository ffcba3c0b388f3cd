import type { StreamKind, Upcaster } from '../../eventstore/index.js';
import { SESSION_CREATED, sessionSealing } from './events.js';

/**
 * The Session streams' older shape, as today's: session.created before automatic deletion was
 * released carries no `auto_purge`: false. (An idempotency mark stored in the clear, from before
 * marks were sealed, opens as it is: the sealing scheme's rule for every kind.)
 */
const upcastSessionEvent: Upcaster = (stored) =>
  stored.type === SESSION_CREATED && !('auto_purge' in stored.data) ? { ...stored, data: { ...stored.data, auto_purge: false } } : stored;

/** How Session streams are stored and read: what every fold of them shares. */
export const sessionStreams: StreamKind = { sealed: sessionSealing, upcast: upcastSessionEvent };
