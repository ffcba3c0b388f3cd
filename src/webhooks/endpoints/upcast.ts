import type { StreamKind, Upcaster } from '../../../eventstore/index.js';
import { SECRET_CREATED, webhookSealing } from './events.js';

/**
 * The webhook streams' older shape: a signing secret created before secrets went under the
 * stream's data key was sealed with the deployment data key `initial`, in `sealed_secret`. Read,
 * it is `sealed_by_initial` with no secret in the clear: it stays sealed (and `initial` is needed)
 * only until it signs, never to fold the stream, so once `rekey` has sealed it again with the
 * stream's key the log still folds without `initial`.
 */
const upcastWebhookEvent: Upcaster = (stored) => {
  if (stored.type !== SECRET_CREATED || !('sealed_secret' in stored.data)) return stored;
  const { sealed_secret: sealed, ...data } = stored.data;
  return { ...stored, data: { ...data, secret: null, sealed_by_initial: sealed } };
};

/** How webhook streams are stored and read: their secrets sealed by the scheme every stream kind shares. */
export const webhookStreams: StreamKind = { sealed: webhookSealing, upcast: upcastWebhookEvent };
