export { answerHeld, type HeldRead } from './held.js';
export { heldReads } from './plugin.js';
export { WAIT_LIMITS } from './limits.js';
export { namesEtag, preferredWait } from './prefer.js';
export { FEED_CHANNEL } from './channels.js';
export { preferenceAppliedHeader, waitedNotModified, waitHeaders } from './schemas.js';
