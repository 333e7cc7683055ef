-- A contract version records the terms it was issued with, so what was agreed stays agreed: the
-- home's rates per tier, fees, deposits, utilities and pets policy, and whether the household has
-- pets, as they stood when the version was issued. Every charge of the version is priced from
-- them, never from the home as it stands later. Versions issued before this column existed have
-- none and price from the home as before.
alter table app.lease_agreements add column terms jsonb;

comment on column app.lease_agreements.terms is
  'The priced terms this version was issued with (home: rates per tier, fees, deposits, utilities, pets policy, currency, name; request: has_pets), frozen: every charge of the version is priced from them. Null on versions issued before terms were recorded.';

-- Terms are written once, with the version, and never changed after.
create or replace function app.lease_terms_frozen() returns trigger
language plpgsql as $$
begin
  if old.terms is not null and new.terms is distinct from old.terms then
    raise exception 'the terms of a contract version never change (lease %)', old.id using errcode = '23514';
  end if;
  return new;
end $$;

create trigger lease_terms_frozen before update of terms on app.lease_agreements
  for each row execute function app.lease_terms_frozen();

comment on function app.lease_terms_frozen() is 'Trigger: refuses a change of a contract version''s terms once they are written (what was agreed stays agreed).';
