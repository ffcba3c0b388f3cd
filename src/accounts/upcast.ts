import { ERASED, type StreamKind, type Upcaster } from '../../eventstore/index.js';
import { accountSealing } from './events.js';

/**
 * The account streams' older shape: before every stream kind sealed its fields together in
 * `sealed`, account events sealed each sealed field alone, in place (a value of its own, null left
 * in the clear). Such a value is opened into its clear field, which today's scheme reads as a
 * field written before it was sealed.
 */
const upcastAccountEvent: Upcaster = (stored, open) => {
  if (accountSealing.of(stored.type).length === 0 || 'sealed' in stored.data || !open) return stored;
  const data = accountSealing.openFieldByField(stored.type, stored.data, open);
  return data === ERASED ? ERASED : { ...stored, data };
};

/** How every account stream kind's events are stored and read: what their deciders and the projection share. */
export const accountStreams: StreamKind = { sealed: accountSealing, upcast: upcastAccountEvent };
