-- The day each ledger entry was posted, on the organisation's clock: a sandbox organisation on a
-- clock of its own (POST /sandbox/clock) posts on the clock's day, everyone else on the wall
-- clock's. created_at stays the wall-clock time of the insert. The statement says of each entry
-- the day of the change that posted it ("released by the shortening of 2027-01-10"): that is this
-- day, which a sandbox stay driven through its months needs, and created_at's is not.
-- Entries posted before it have none: the statement reads created_at's day for them.
alter table app.ledger_entries add column posted_on date;
comment on column app.ledger_entries.posted_on is
  'The day the entry was posted on the organisation''s clock (app.clock_now(), in UTC): the day of the change that posted it. Null for entries posted before the column existed (then created_at''s day).';
