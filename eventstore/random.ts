import { randomFillSync } from 'node:crypto';

/**
 * Random bytes drawn from the system 4 KiB at a time. A call into the CSPRNG costs about 2 µs
 * whatever its size, and the write path wanted many small ones: ulid's own source asks for one
 * byte per character (sixteen calls an id), and sealing for twelve bytes an IV; both showed in
 * profiles. Each byte is handed out once, and the pool is refilled in place, so bytes that leave
 * it are copied.
 */
const pool = Buffer.alloc(4096);
let at = pool.length;

/** Where the next `length` bytes start, refilling the pool when fewer are left. */
function take(length: number): number {
  if (at + length > pool.length) {
    randomFillSync(pool);
    at = 0;
  }
  at += length;
  return at - length;
}

/** `length` random bytes (at most 4,096), in a buffer of their own. */
export function pooledRandomBytes(length: number): Buffer {
  const start = take(length);
  return Buffer.from(pool.subarray(start, start + length));
}

/** A random fraction in [0, 1) from one byte: a byte over 256 picks each of ulid's 32 characters with equal chance. */
export const pooledRandomFraction = (): number => pool[take(1)]! / 256;
