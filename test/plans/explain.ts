import type pg from 'pg';

/**
 * The plans PostgreSQL makes for a statement, the way the service's connections make them:
 * prepared (each parameter typed as PREPARE infers it, as for a statement sent without types) and
 * then planned with the parameters' values (a custom plan) or without them (the generic plan a
 * prepared statement switches to after its fifth run, and every statement in a PL/pgSQL function).
 */

export type PlanMode = 'generic' | 'custom';

export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

/** Every relation the plan reads with a Seq Scan. */
export function seqScans(node: PlanNode): string[] {
  const own = node['Node Type'] === 'Seq Scan' && node['Relation Name'] ? [node['Relation Name']] : [];
  return [...own, ...(node.Plans ?? []).flatMap(seqScans)];
}

/** A cursor's query is planned as the query it declares. */
const declared = (text: string): string => text.replace(/^\s*DECLARE\s+\S+\s+(NO\s+)?(SCROLL\s+)?CURSOR\s+(WITH(OUT)?\s+HOLD\s+)?FOR\s+/i, '');

export interface Explained {
  plan: PlanNode;
  /** The plan as EXPLAIN prints it, for a message. */
  text: string;
}

/** The statement's plans in each mode, with these parameters; the statement is not run. */
export async function explain(client: pg.PoolClient, text: string, params: readonly unknown[], modes: readonly PlanMode[]): Promise<Map<PlanMode, Explained>> {
  await client.query(`PREPARE plan_guard AS ${declared(text)}`);
  try {
    const { rows } = await client.query<{ types: string[] }>(`SELECT parameter_types::text[] AS types FROM pg_prepared_statements WHERE name = 'plan_guard'`);
    const types = rows[0]!.types;
    if (types.length !== params.length) throw new Error(`the statement takes ${types.length} parameters, its sample gives ${params.length}`);
    // EXECUTE takes its arguments as expressions: each value as a literal of its inferred type.
    const literals =
      types.length === 0
        ? []
        : ((await client.query({ text: `SELECT ${types.map((t, i) => `quote_nullable($${i + 1}::${t})`).join(', ')}`, values: [...params], rowMode: 'array' })).rows[0] as string[]);
    const execute = `EXECUTE plan_guard${types.length === 0 ? '' : `(${literals.map((l, i) => `${l}::${types[i]}`).join(', ')})`}`;
    const plans = new Map<PlanMode, Explained>();
    for (const mode of modes) {
      await client.query(`SET plan_cache_mode = force_${mode}_plan`);
      const json = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (FORMAT JSON) ${execute}`);
      const printed = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${execute}`);
      plans.set(mode, { plan: json.rows[0]!['QUERY PLAN'][0]!.Plan, text: printed.rows.map((r) => r['QUERY PLAN']).join('\n') });
    }
    return plans;
  } finally {
    await client.query('RESET plan_cache_mode');
    await client.query('DEALLOCATE plan_guard');
  }
}

export interface NestedPlan {
  query: string;
  plan: PlanNode;
}

/**
 * Runs the statement in a transaction that is rolled back, with auto_explain reporting the plan of
 * every statement it runs, those of the triggers it fires included (superuser only).
 */
export async function runExplained(client: pg.PoolClient, text: string, params: readonly unknown[], mode: PlanMode): Promise<NestedPlan[]> {
  const plans: NestedPlan[] = [];
  const onNotice = (notice: { message?: string }) => {
    const at = notice.message?.indexOf('plan:\n') ?? -1;
    if (at < 0) return;
    const logged = JSON.parse(notice.message!.slice(at + 'plan:\n'.length)) as { 'Query Text': string; Plan: PlanNode };
    plans.push({ query: logged['Query Text'], plan: logged.Plan });
  };
  client.on('notice', onNotice);
  try {
    await client.query('BEGIN');
    await client.query(`LOAD 'auto_explain'`);
    for (const setting of [
      'auto_explain.log_min_duration = 0',
      'auto_explain.log_nested_statements = on',
      'auto_explain.log_level = notice',
      'auto_explain.log_format = json',
      `plan_cache_mode = force_${mode}_plan`,
    ]) {
      await client.query(`SET LOCAL ${setting}`);
    }
    await client.query(text, [...params]);
    return plans;
  } finally {
    await client.query('ROLLBACK');
    client.off('notice', onNotice);
  }
}
