-- The background lease's column and function comments (20261128105515 created the table and the
-- functions; that migration ran as it was and is not changed).
comment on column app.background_leases.holder is 'The process holding the lease: its host and the port it serves (a process started again on the same port renews it at once).';
comment on column app.background_leases.expires_at is 'When the lease lapses unless its holder renews it; after that, the next process to ask takes it.';
comment on function app.take_background_lease(text, text, interval) is
  'Takes or renews the background lease p_name for p_holder, for p_ttl from the moment it is called; true when p_holder holds it, false while another holds an unexpired one.';
comment on function app.release_background_lease(text, text) is
  'Gives the background lease p_name up if p_holder holds it (a process stopping), so that the next process to ask takes it.';
