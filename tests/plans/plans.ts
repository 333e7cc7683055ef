// The plans the service's own statements run with, as a pooled connection runs them: each
// statement is sent as the service sends it (a named prepared statement, inside the tenant's
// transaction under svc_api), with the plan cache forced to the generic plan (what a connection
// settles on after five calls) or to a custom plan, and auto_explain hands back what each statement
// actually read (its plan with rows and buffers, as a NOTICE to this connection only).
import postgres from 'postgres';
import { pgTypes, type Tx } from '../../shared/db/client.ts';
import type { Tenant } from '../../shared/db/tenant.ts';

export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Filter?: string;
  'Rows Removed by Filter'?: number;
  'Actual Rows': number;
  'Actual Loops': number;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: PlanNode[];
}

export interface ExecutedPlan {
  query: string;
  plan: PlanNode;
  /** Every node of the plan, depth first. */
  nodes: PlanNode[];
  /** Shared buffers the statement touched (hit or read). */
  buffers: number;
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

export type PlanMode = 'generic' | 'custom';

/**
 * The plans of the statements `work` runs for `tenant`, in order (the tenant context's own statement
 * left out); with `nested`, also those of the statements its functions and triggers run.
 */
export async function executedPlans(
  tenant: Tenant,
  mode: PlanMode,
  work: (tx: Tx) => Promise<unknown>,
  { nested = false }: { nested?: boolean } = {},
): Promise<ExecutedPlan[]> {
  const notices: string[] = [];
  const sql = postgres(process.env.DATABASE_URL!, {
    max: 1,
    types: pgTypes,
    onnotice: (notice) => notices.push(notice.message),
    connection: { plan_cache_mode: mode === 'generic' ? 'force_generic_plan' : 'force_custom_plan' } as Record<string, string>,
  });
  try {
    await sql.begin(async (tx) => {
      await tx`load 'auto_explain'`;
      await tx`select set_config('auto_explain.log_min_duration', '0', true), set_config('auto_explain.log_analyze', 'on', true),
                      set_config('auto_explain.log_buffers', 'on', true), set_config('auto_explain.log_format', 'json', true),
                      set_config('auto_explain.log_level', 'notice', true),
                      set_config('auto_explain.log_nested_statements', ${nested ? 'on' : 'off'}, true)`;
      await tx`select set_config('role', 'svc_api', true), set_config('app.org_id', ${tenant.orgId}, true),
                      set_config('app.env', ${tenant.environment}, true)`;
      await work(tx as unknown as Tx);
    });
  } finally {
    await sql.end();
  }
  return notices
    .map((message) => JSON.parse(message.slice(message.indexOf('{'))) as { 'Query Text': string; Plan: PlanNode })
    // The set-up statements' own plans (their notices may arrive after the statement's result).
    .filter(({ 'Query Text': query }) => !/set_config\(/.test(query))
    .map(({ 'Query Text': query, Plan: plan }) => {
      const nodes = nodesOf(plan);
      return { query, plan, nodes, buffers: plan['Shared Hit Blocks'] + plan['Shared Read Blocks'] };
    });
}

/** The scans of one table in a plan: which index (or none) and how many rows each read and threw away. */
export const scansOf = (plan: ExecutedPlan, table: string) =>
  plan.nodes.filter((node) => node['Relation Name'] === table && /Scan/.test(node['Node Type']));
