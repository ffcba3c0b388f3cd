/**
 * A record's own entry. Field names are user-chosen (`constructor` and `__proto__` are valid), so
 * every lookup by name must ignore what objects inherit.
 */
export const own = <T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined =>
  record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
