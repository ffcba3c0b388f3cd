export { answerHeld, type HeldRead } from './held.js';
export { heldReads } from './plugin.js';
export { WAIT_LIMITS, type WorkspaceKind } from './limits.js';
export { namesEtag, preferredWait } from './prefer.js';
export { FEED_CHANNEL } from './channels.js';
export type { Waiters } from './waiters.js';
export { ownerHold } from './owner.js';
