import { limitOption, oneOf, uuidOption, type Command } from './options.ts';
import { redactLinks } from './outbox.ts';

// What the service asked of the e-signature provider and the payment processor, as an operator
// watching a live deployment reads it (email is `outbox list`): each durable job that calls the
// e-signature provider (create, withdraw or read back a contract) or issues a refund, and each
// checkout the pay page opened at the processor; sent, waiting or failed, after how many attempts,
// and why. Never a checkout's address or a page link: a checkout URL takes a payment, a pay or
// household link opens a page; any a field might quote is redacted.

const kinds = ['esign', 'payments'] as const;
const statuses = ['queued', 'retrying', 'done', 'skipped', 'failed', 'open', 'paid', 'refunded'] as const;

export const callCommands: Record<string, Command> = {
  'calls list': {
    usage: 'calls list [--kind esign|payments] [--org ORG_ID] [--env live|sandbox] [--status queued|retrying|done|skipped|failed|open|paid|refunded] [--limit N]',
    summary: 'The calls to the e-signature provider and the payment processor (contracts sent, withdrawn, read back; checkouts opened; refunds), newest first: status, attempts and the last error; for a contract sent, the language of its signing emails. Never a checkout address or a page link.',
    async run(sql, options) {
      const kind = options.kind === undefined ? null : oneOf(options, 'kind', kinds);
      const org = options.org === undefined ? null : uuidOption(options, 'org');
      const env = options.env === undefined ? null : oneOf(options, 'env', ['live', 'sandbox'] as const);
      const status = options.status === undefined ? null : oneOf(options, 'status', statuses);
      const limit = limitOption(options);
      // A job's status as the outbox words it; a checkout's is its payment's (pending: the checkout is open).
      const rows = await sql<Record<string, unknown>[]>`
        with job_calls as (
          select j.*, case when j.kind in ('send_contract', 'withdraw_contract', 'reread_contract') then 'esign' else 'payments' end as call_kind,
                 case when j.status = 'succeeded' and j.result ? 'skipped' then 'skipped'
                      when j.status = 'succeeded' then 'done'
                      when j.status = 'abandoned' then 'failed'
                      when j.attempts > 0 then 'retrying'
                      else 'queued' end as call_status
            from app.jobs j
           where j.kind in ('send_contract', 'withdraw_contract', 'reread_contract', 'issue_refund')),
        calls as (
          select j.id, j.call_kind as kind, j.kind as call, j.org_id, j.environment, c.claim_ref as reference, j.call_status as status,
                 coalesce(j.last_error, j.result ->> 'skipped') as why,
                 coalesce(j.result ->> 'provider_ref', j.result ->> 'withdrawn', j.payload ->> 'provider_ref', l.provider_ref, r.provider_ref) as provider_ref,
                 r.amount_cents, r.currency, j.attempts, j.max_attempts, j.created_at, j.completed_at,
                 case when j.status = 'pending' then j.run_at end as next_attempt_at,
                 -- The language a contract's signing emails were asked in (send_contract's result).
                 j.result ->> 'language' as language
            from job_calls j
            left join app.lease_agreements l
              on (j.kind = 'send_contract' and l.id = (j.payload ->> 'lease_id')::uuid)
              or (j.kind in ('withdraw_contract', 'reread_contract') and l.provider_ref = j.payload ->> 'provider_ref')
            left join app.refund_requests r on j.kind = 'issue_refund' and r.id = (j.payload ->> 'refund_request_id')::uuid
            left join app.claims c on c.id = coalesce(l.claim_id, r.claim_id)
          union all
          select p.id, 'payments', 'checkout', coalesce(p.carrier_org_id, p.org_id), p.environment, c.claim_ref,
                 case p.status when 'pending' then 'open' when 'succeeded' then 'paid' else p.status end,
                 p.failure_reason, coalesce(p.provider_ref, p.checkout_ref), p.gross_cents, p.currency,
                 null, null, p.created_at, p.paid_at, null, null
            from app.payments p
            left join app.claims c on c.id = p.claim_id
           where p.checkout_ref is not null
             -- The landlord's account takes the payment; the carrier (or the household it placed) pays it: either organisation sees it.
             and (${org}::uuid is null or p.org_id = ${org} or p.carrier_org_id = ${org}))
        select * from calls
         where (${kind}::text is null or kind = ${kind})
           and (${org}::uuid is null or org_id = ${org} or call = 'checkout')
           and (${env}::text is null or environment = ${env})
           and (${status}::text is null or status = ${status})
         order by created_at desc, id desc
         limit ${limit}`;
      const data: Record<string, unknown>[] = rows.map((row) => ({ ...row, why: redactLinks(row.why as string | null) }));
      const byStatus = Object.fromEntries(statuses.map((s) => [s, data.filter((row) => row.status === s).length]));
      return { data, count: data.length, by_status: byStatus };
    },
  },
};
