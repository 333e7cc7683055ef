-- A keyed write's change and its key's record now commit together: the write's own transaction
-- marks the key `applied` just before its commit. The answer is stored after, in a statement of its
-- own; a server that stops between the two leaves the key `applied` without an answer, and a retry
-- is told the change is done (409 idempotent_answer_lost) instead of running it a second time.
alter table app.idempotency_keys drop constraint idempotency_keys_state_check;
alter table app.idempotency_keys add constraint idempotency_keys_state
  check (state in ('in_progress', 'applied', 'done'));
comment on column app.idempotency_keys.state is
  'in_progress while the first request runs; applied once a write of it committed (in that write''s transaction); done once its response is stored.';
