-- The language the household reads its page and its emails in (a BCP 47 tag such as es or es-PR),
-- as the carrier states it on the request. Null: not stated; the page then follows the browser, and
-- the emails are in English. Only the household's words use it: what the landlord, the carrier and
-- staff read stays in English.
alter table app.claims add column household_language text
  check (household_language is null or (length(household_language) between 2 and 35 and household_language ~ '^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$'));

comment on column app.claims.household_language is
  'BCP 47 tag of the household''s language (es, es-PR, en-US), canonicalised by the API; null when the carrier did not state it (English emails, the page follows the browser).';
