import { fileURLToPath } from 'node:url';

/** The audit capability's own index on the log (exports of one Session). */
export const AUDIT_MIGRATIONS = fileURLToPath(new URL('./migrations/', import.meta.url));
