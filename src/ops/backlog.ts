import type { Reader } from '../../eventstore/index.js';
import { PROJECTION_LAG } from './sql.js';

/** The projections' backlog, shared by `status` and `/metrics` (each capability reads its own: its record's gauges). */

export interface ProjectionLag {
  name: string;
  position: number;
  behind: number;
}

export async function projectionLag(db: Reader, names: readonly string[]): Promise<ProjectionLag[]> {
  const { rows } = await db.query<{ name: string; position: string; behind: number }>(PROJECTION_LAG, [names]);
  return rows.map((r) => ({ name: r.name, position: Number(r.position), behind: r.behind }));
}

export const secondsBetween = (from: Date, to: Date): number => Math.max(0, Math.round((to.getTime() - from.getTime()) / 1000));
