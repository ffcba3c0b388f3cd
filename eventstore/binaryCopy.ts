/**
 * The fixed parts of PostgreSQL's binary COPY format, for the reader of a rebuild's pages
 * (streamPages.ts) and the writer of its rows (projections/copy.ts).
 */

/** The signature every binary COPY starts with. */
const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/** The signature, no flags, no header extension: the whole header as the server writes it. */
export const COPY_HEADER = Buffer.concat([SIGNATURE, Buffer.alloc(8)]);

/** A field count of -1: the end of the data. */
export const COPY_TRAILER = Buffer.from([0xff, 0xff]);

/** PostgreSQL's epoch, 2000-01-01T00:00:00Z, in JavaScript's milliseconds: times go over as microseconds since it. */
export const PG_EPOCH_MS = Date.UTC(2000, 0, 1);
