-- What app.undelivered_messages.error holds changes: the carrier reads it (timeline entry and event),
-- so a send job that spent its attempts records a fixed phrase, and the transport's own words (a
-- relay's host and port, a server's replies) stay with staff in the job's last error. Rows recorded
-- before keep their words: an entry of the timeline is never rewritten.
comment on column app.undelivered_messages.error is
  'What the carrier is told stopped it: the missing settings (not_configured), or a fixed phrase (failed: the transport''s error is the send job''s last_error, for staff). Rows recorded before this migration may carry the last attempt''s error.';
