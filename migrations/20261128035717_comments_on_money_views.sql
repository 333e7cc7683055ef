-- Studio reads every column with its comment: the ledger's balances and the refund request as it
-- reads now (asked, with its current status from its appended changes) get theirs.

comment on column app.ledger_balances.claim_home_id is 'The placement (the stay) whose ledger the account belongs to.';
comment on column app.ledger_balances.account is 'payer_rent, payer_fees, payer_deposit (what that part''s payer owes), landlord_rent, landlord_fees (what the stay earns the landlord), deposits_held, processor (taken in from payers less refunded), service_fee.';
comment on column app.ledger_balances.balance_cents is 'Debits less credits over every entry of the stay, in cents; a stay''s balances sum to 0 (a credit balance is negative).';

comment on column app.refund_requests.claim_home_id is 'The placement whose payment is to be refunded.';
comment on column app.refund_requests.provider_org_id is 'The landlord''s organisation, which approves or declines.';
comment on column app.refund_requests.payment_id is 'The processor payment the money goes back on.';
comment on column app.refund_requests.amount_cents is 'The amount asked, in cents; an approval returns at most what is owed back then (the ledger''s refund entries say what was).';
comment on column app.refund_requests.covers_deposit is 'Whether the refunded payment included a deposit.';
comment on column app.refund_requests.reason is 'The carrier''s reason, as given.';
comment on column app.refund_requests.purpose is 'owed_back (settled beyond what the stay now charges) or deposit (the deposits the stay holds of that payer).';
comment on column app.refund_requests.goodwill is 'Asked with goodwill: it may return more than is owed back, released as goodwill.';
comment on column app.refund_requests.automatic is 'Issued by the service itself (a duplicate charge), approved when made.';
