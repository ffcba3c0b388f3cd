/**
 * The wake-up channel of the workspace event feed: every commit that adds to a workspace's feed
 * names the workspace on it (src/feed/projection.ts), so a feed waiter wakes on its own
 * workspace's events only. Sent in the same NOTIFY statement as the stream ids (eventstore/notifier.ts).
 */
export const FEED_CHANNEL = 'svc_feed';
