-- A tenant's options on one home, by organisation, environment and home. Two checks that run with
-- each event and each named home asked for the options of the calling tenant and had no index that
-- starts with the tenant, so each read every option of the table:
--   app.record_event, an event for another organisation: has the caller an option on one of its homes;
--   app.home_label: has the caller an option on this home (all three columns given: one lookup).
-- In the surge that was 1,852 reads of the whole table (430,000 rows), growing with every option.
create index claim_options_by_tenant_home on app.claim_options (org_id, environment, property_id);
