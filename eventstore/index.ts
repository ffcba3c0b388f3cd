export * from './store.js';
export * from './keys.js';
export { transactionMemo, withCommandTransaction, withTransaction, type Tx } from './transaction.js';
export { migrate, pendingMigrations, bundledMigrations } from './migrate.js';
export { Wakeups, EVENTS_CHANNEL, reconnectDelay } from './wakeups.js';
