import { oneOf, uuidOption, type Command } from './options.ts';

// Reconciliation: the stay's ledger against the processor's record of the same money, stay by stay
// (staff.ledger_differences, which Studio shows too). Every payment and refund is a ledger entry, so
// what the processor says was paid, refunded and taken as the platform fee must match the entries;
// each difference is listed with its amount. A refund approved and not yet issued is listed as in
// flight, not as a difference. Like every listing it exits 0 whatever it finds: `differences` is 0
// when the two agree.

export const differenceKinds = [
  'payment_not_in_ledger', 'payment_part_differs', 'payment_not_settled', 'refund_differs', 'refund_exceeds_paid',
  'platform_fee_differs', 'settlement_on_other_stay', 'refund_on_other_payment', 'refund_not_approved',
] as const;
const kinds = [...differenceKinds, 'refund_in_flight'] as const;

export interface LedgerDifference {
  kind: (typeof kinds)[number];
  in_flight: boolean;
  organisation: string;
  org_id: string;
  provider_org_id: string | null;
  environment: 'live' | 'sandbox';
  reference: string | null;
  placement_id: string;
  property_id: string;
  payment_id: string | null;
  refund_request_id: string | null;
  part: 'rent' | 'deposit' | 'fees' | null;
  payer: string | null;
  ledger_cents: number;
  processor_cents: number;
  difference_cents: number;
  currency: string;
  detail: string;
}

export const ledgerCommands: Record<string, Command> = {
  'ledger reconcile': {
    usage: 'ledger reconcile [--org ORG_ID] [--env live|sandbox] [--kind KIND]',
    summary: "Compares, stay by stay, the ledger with the processor's record of payments (paid per part, refunded, platform fee) and lists every difference with its amount in cents (difference_cents: the processor's figure less the ledger's), and refunds approved but not yet issued as in flight. Exits 0; `differences` is 0 when they agree.",
    async run(sql, options) {
      const org = options.org === undefined ? null : uuidOption(options, 'org');
      const env = options.env === undefined ? null : oneOf(options, 'env', ['live', 'sandbox'] as const);
      const kind = options.kind === undefined ? null : oneOf(options, 'kind', kinds);
      const rows = await sql<LedgerDifference[]>`
        select kind, in_flight, organisation, org_id, provider_org_id, environment, reference, placement_id, property_id, payment_id,
               refund_request_id, part, payer, ledger_cents::float8 as ledger_cents, processor_cents::float8 as processor_cents,
               difference_cents::float8 as difference_cents, currency, detail
          from staff.ledger_differences
         where (${org}::uuid is null or org_id = ${org} or provider_org_id = ${org})
           and (${env}::text is null or environment = ${env})
           and (${kind}::text is null or kind = ${kind})
         order by in_flight, environment, reference, placement_id, payment_id, kind, part`;
      const differences = rows.filter((r) => !r.in_flight);
      const byKind = Object.fromEntries(kinds.map((k) => [k, rows.filter((r) => r.kind === k).length]));
      return {
        data: rows,
        count: rows.length,
        differences: differences.length,
        in_flight: rows.length - differences.length,
        by_kind: byKind,
      };
    },
  },
};
