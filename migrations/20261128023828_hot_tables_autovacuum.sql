-- Autovacuum and analyze for the tables that grow fastest in a catastrophe (a season: 2,000,000
-- events, 3,200,000 webhook deliveries, 500,000 Idempotency-Keys, ledger entries by the tens of
-- thousands). The defaults act on a fifth of a table (vacuum after 20 % of its rows are dead or newly
-- inserted, analyze after 10 % changed): at a season's size that is 400,000 events between two
-- vacuums and statistics days old, so the newest rows (the ones every list reads first) lie past the
-- histogram the planner knows. These act on about 1 to 2 % instead, a few hours of a busy day.
--
-- Per-table storage parameters: the owner of the tables may set them, Supabase included (migrations
-- run as the owner there); nothing server-wide is changed (docs/performance.md, Tables at a season's
-- size, says what is and is not settable on Supabase).

-- The event log: appended all day, purged by the hour (90 days), read newest first by type.
alter table app.events set (
  autovacuum_vacuum_scale_factor = 0.02,
  autovacuum_vacuum_insert_scale_factor = 0.02,
  autovacuum_analyze_scale_factor = 0.01
);

-- Deliveries: appended with the events, each updated as it is attempted and finished, purged with
-- its event. Dead row versions come from the updates as much as from the purge.
alter table app.webhook_deliveries set (
  autovacuum_vacuum_scale_factor = 0.02,
  autovacuum_vacuum_insert_scale_factor = 0.02,
  autovacuum_analyze_scale_factor = 0.01
);

-- The stay ledger: append-only, never updated or deleted; vacuumed for its visibility map (index-only
-- reads of a placement's entries) and frozen in small steps instead of one large anti-wraparound pass.
alter table app.ledger_entries set (
  autovacuum_vacuum_insert_scale_factor = 0.02,
  autovacuum_analyze_scale_factor = 0.02
);

-- Idempotency-Keys: one row a write, updated once when applied, purged after 48 hours.
alter table app.idempotency_keys set (
  autovacuum_vacuum_scale_factor = 0.02,
  autovacuum_vacuum_insert_scale_factor = 0.02,
  autovacuum_analyze_scale_factor = 0.02
);
