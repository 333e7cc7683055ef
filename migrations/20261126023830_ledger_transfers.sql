-- The ledger's transfers and the version that posted each entry, added after the ledger's table
-- (20261125215707) was created. An extension that restores nights to a part already paid moves what
-- the restore adds beyond what was paid to its own charge (a transfer pair), and a lapse moves it
-- back; so entries of kind 'transfer' exist, their amount may have either sign, and every entry an
-- extension's signing posts names that version (posted_for), so a lapse finds exactly what to undo.

alter table app.ledger_entries drop constraint ledger_entries_kind_check;
alter table app.ledger_entries add constraint ledger_entries_kind_check
  check (kind in ('charge', 'release', 'restore', 'reversal', 'transfer'));

-- The sign rule was an unnamed table check; it is found by its definition and replaced by a named one.
do $$
declare v_name text;
begin
  select conname into strict v_name from pg_constraint
   where conrelid = 'app.ledger_entries'::regclass and contype = 'c'
     and pg_get_constraintdef(oid) like '%amount_cents >= 0%';
  execute format('alter table app.ledger_entries drop constraint %I', v_name);
end $$;
alter table app.ledger_entries add constraint ledger_entries_amount_sign
  check (case when kind in ('charge', 'restore') then amount_cents >= 0 when kind in ('release', 'reversal') then amount_cents <= 0 else true end);

-- A database that applied the table with the column already (as first written) keeps it.
alter table app.ledger_entries add column if not exists posted_for uuid references app.lease_agreements (id);

comment on table app.ledger_entries is
  'The posted money of a stay (shared/placements/ledger.ts): charges when a contract version is signed by both, releases when a stay is shortened or an extension lapses, restores (and transfers) when it is extended over nights released before, reversals when a placement is cancelled. Append-only.';
comment on column app.ledger_entries.kind is 'charge (posted when signed), release (nights given back), restore (released nights taken back by an extension), reversal (a cancellation), transfer (what a restore put on a part already paid beyond what was paid for it, moved to the extension''s charge, and moved back when it lapses).';
comment on column app.ledger_entries.posted_for is 'The contract version whose signing posted the entry (its charges, and the restores and transfers of an extension); null for a release or reversal.';
