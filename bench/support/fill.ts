import type pg from 'pg';
import { linkHash, recordedAtText, type LinkFields } from '../../eventstore/index.js';

/** A large log made fast, for the benchmarks that need one: plain streams, linked as the appender links them. */

const PAYLOAD = 'x'.repeat(200);

/**
 * Versions from+1..to of each of `streams` streams (`bench-1`...), five versions of every stream per statement. Each event is
 * linked as the appender links it (the database checks the link names its predecessor).
 */
export async function fillStreams(pool: pg.Pool, streams: number, heads: Map<string, string>, fromVersion: number, toVersion: number): Promise<void> {
  for (let v = fromVersion + 1; v <= toVersion; v += 5) {
    const recordedAt = new Date();
    const rows: Array<LinkFields & { hash: string }> = [];
    for (let version = v; version <= Math.min(v + 4, toVersion); version++) {
      for (let s = 1; s <= streams; s++) {
        const streamId = `bench-${s}`;
        const link: LinkFields = {
          prev_hash: heads.get(streamId) ?? null,
          event_id: `evt_${s}_${version}`,
          stream_id: streamId,
          stream_version: version,
          type: 'counted',
          data: `{"n":${version},"payload":"${PAYLOAD}"}`,
          metadata: '{}',
          recorded_at: recordedAtText(recordedAt),
          link_format: 2,
        };
        const hash = linkHash(link);
        heads.set(streamId, hash);
        rows.push({ ...link, hash });
      }
    }
    const column = <K extends keyof (typeof rows)[0]>(key: K) => rows.map((row) => row[key]);
    await pool.query(
      `INSERT INTO events (event_id, stream_id, stream_version, type, data, metadata, recorded_at, prev_hash, hash)
       SELECT e.event_id, e.stream_id, e.stream_version, 'counted', e.data, '{}', $1, decode(e.prev_hash, 'hex'), decode(e.hash, 'hex')
         FROM unnest($2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[])
              WITH ORDINALITY AS e(event_id, stream_id, stream_version, data, prev_hash, hash, n)
        ORDER BY e.n`,
      [recordedAt, column('event_id'), column('stream_id'), column('stream_version'), column('data'), column('prev_hash'), column('hash')],
    );
  }
}

