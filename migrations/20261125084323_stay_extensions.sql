-- The stay over time, part 2: extending a stay (POST /claims/{reference}/extensions).
--
-- An extension is an addendum to the signed lease: a contract version of kind addendum that covers
-- the added nights only ([move_in_date, move_out_date) = [the stay's move-out, the new move-out)),
-- priced by the signed terms at the tier of the extended stay's length. It holds those nights at
-- once, goes out for both signatures like a lease, and takes effect when its payment clears
-- (effective_at): only then does the stay's move-out move. Declined, lapsed or unpaid, it leaves the
-- stay as it was. The signed lease itself is never touched.

alter table app.lease_agreements
  add column kind text not null default 'lease' check (kind in ('lease', 'addendum')),
  add column extends_lease_id uuid references app.lease_agreements (id),
  add column effective_at timestamptz,
  add constraint lease_agreements_addendum check ((kind = 'addendum') = (extends_lease_id is not null)),
  add constraint lease_agreements_effective check (effective_at is null or (kind = 'addendum' and status = 'fully_signed'));
alter table app.lease_agreements drop constraint lease_agreements_issued_by_check;
alter table app.lease_agreements add constraint lease_agreements_issued_by
  check (issued_by in ('dates', 'approve_proposal', 'signer', 'extension') and (issued_by = 'extension') = (kind = 'addendum'));
comment on column app.lease_agreements.kind is 'lease: a contract version of the stay; addendum: an extension of the signed lease, covering the added nights.';
comment on column app.lease_agreements.extends_lease_id is 'For an addendum: the signed lease it extends.';
comment on column app.lease_agreements.effective_at is 'For an addendum: when its payment cleared and the stay took its move-out. Null: not (yet) in effect.';
comment on column app.lease_agreements.issued_by is 'The call that issued this version: dates (POST dates), approve_proposal, signer, extension (an addendum).';

-- One live lease per placement, as before; and at most one addendum not yet in effect.
drop index app.lease_agreements_one_live;
create unique index lease_agreements_one_live on app.lease_agreements (claim_home_id)
  where kind = 'lease' and status not in ('superseded', 'withdrawn');
create unique index lease_agreements_one_open_addendum on app.lease_agreements (claim_home_id)
  where kind = 'addendum' and effective_at is null and status not in ('superseded', 'withdrawn');

alter table app.payments drop constraint payments_charge_type_check;
alter table app.payments add constraint payments_charge_type check (charge_type in ('initial', 'rent', 'deposit', 'fee', 'extension'));
comment on column app.payments.charge_type is
  'initial (first charge at placement), rent, deposit, fee, or extension (the added nights of an extended stay, with its addendum as lease_agreement_id).';
