import { limitOption, oneOf, uuidOption, type Command } from './options.ts';

// The outbox as an operator reads it: every message the service queued (send_email, and the
// household's link, send_household_link), whether it went out, is waiting or failed, and why. It
// shows whom and why, never a message's text: the household's link is a login, and a sandbox job keeps
// its message (for the sandbox emails helper). Any link a field might still carry (an error quoting a
// URL) is redacted all the same.

const statuses = ['queued', 'retrying', 'sent', 'skipped', 'failed'] as const;

/** A page or setup link's token (household/<token>, pay/<token>, pay/setup/<token>) hidden. */
export const redactLinks = (text: string | null) => text?.replace(/\/(household|pay(?:\/setup)?)\/[A-Za-z0-9_.~-]{16,}/g, '/$1/[redacted]') ?? null;

export const outboxCommands: Record<string, Command> = {
  'outbox list': {
    usage: 'outbox list [--org ORG_ID] [--env live|sandbox] [--status queued|retrying|sent|skipped|failed] [--limit N]',
    summary: 'The messages the service queued, newest first: to whom, why (topic), sent, waiting or failed, and the last error. Never a message\'s text or link.',
    async run(sql, options) {
      const org = options.org === undefined ? null : uuidOption(options, 'org');
      const env = options.env === undefined ? null : oneOf(options, 'env', ['live', 'sandbox'] as const);
      const status = options.status === undefined ? null : oneOf(options, 'status', statuses);
      const limit = limitOption(options);
      const rows = await sql<Record<string, unknown>[]>`
        with messages as (
          select j.id, j.kind, j.org_id, j.environment,
                 case when j.kind = 'send_household_link' then 'home.offered' else j.payload ->> 'topic' end as topic,
                 case when j.kind = 'send_household_link' then coalesce(j.result -> 'to', to_jsonb(array_remove(array[c.household_email], null)))
                      else j.payload -> 'to' end as "to",
                 case when j.kind = 'send_email' then j.payload ->> 'subject' end as subject,
                 c.claim_ref as reference,
                 case when j.status = 'succeeded' and j.result ? 'skipped' then 'skipped'
                      when j.status = 'succeeded' then 'sent'
                      when j.status = 'abandoned' then 'failed'
                      when j.attempts > 0 then 'retrying'
                      else 'queued' end as status,
                 coalesce(j.last_error, j.result ->> 'skipped') as why,
                 j.result ->> 'provider_ref' as provider_ref,
                 j.attempts, j.max_attempts, j.created_at, j.completed_at,
                 case when j.status = 'pending' then j.run_at end as next_attempt_at
            from app.jobs j
            left join app.claim_options h on j.kind = 'send_household_link' and h.id = (j.payload ->> 'placement_id')::uuid
            left join app.claims c on c.id = h.claim_id
           where j.kind in ('send_email', 'send_household_link')
             and (${org}::uuid is null or j.org_id = ${org})
             and (${env}::text is null or j.environment = ${env}))
        select * from messages where ${status}::text is null or status = ${status}
         order by created_at desc, id desc
         limit ${limit}`;
      const data: Record<string, unknown>[] = rows.map((row) => ({ ...row, subject: redactLinks(row.subject as string | null), why: redactLinks(row.why as string | null) }));
      const byStatus = Object.fromEntries(statuses.map((s) => [s, data.filter((row) => row.status === s).length]));
      return { data, count: data.length, by_status: byStatus };
    },
  },
};
