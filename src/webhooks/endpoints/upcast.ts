import type { StreamKind, Upcaster } from '../../../eventstore/index.js';
import { SECRET_CREATED } from './events.js';

/**
 * The webhook streams' older shape: a signing secret created before secrets went under the
 * stream's data key was sealed with the deployment data key `initial`, in `sealed_secret`. Read,
 * it is `sealed` with `sealed_by: 'initial'` (until `rekey` seals it again with the stream's key).
 */
const upcastWebhookEvent: Upcaster = (stored) => {
  if (stored.type !== SECRET_CREATED || !('sealed_secret' in stored.data)) return stored;
  const { sealed_secret: sealed, ...data } = stored.data;
  return { ...stored, data: { ...data, sealed, sealed_by: 'initial' } };
};

/** How webhook streams are stored and read: their secrets are sealed by the caller, so the kind seals no field itself. */
export const webhookStreams: StreamKind = { upcast: upcastWebhookEvent };
