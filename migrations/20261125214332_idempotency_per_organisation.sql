-- An Idempotency-Key is the organisation's (and environment's), not one API key's: a retry sent with
-- another of its keys holding the route's scope replays the first answer. The fingerprint no longer
-- starts with the API key's id; records kept from before lose that prefix, so a retry of a call made
-- just before this change still replays instead of being refused as another request.
update app.idempotency_keys
   set fingerprint = substr(fingerprint, strpos(fingerprint, ' ') + 1)
 where fingerprint ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12} ';
comment on column app.idempotency_keys.fingerprint is
  'Method, path and hash of the body, whichever API key of the organisation and environment sent it; a retry with another one is refused (409 idempotency_key_reused).';
