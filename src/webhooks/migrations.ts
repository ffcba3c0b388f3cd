import { fileURLToPath } from 'node:url';

/** The webhooks capability's tables: endpoints, signing secrets and delivery jobs. */
export const WEBHOOKS_MIGRATIONS = fileURLToPath(new URL('./migrations/', import.meta.url));
