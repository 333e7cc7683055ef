-- Simulated events exist in sandbox only (specification: "Simulated events reach sandbox endpoints
-- only"), whoever records them.
alter table app.events
  add constraint events_simulated_in_sandbox check (not simulated or environment = 'sandbox');
