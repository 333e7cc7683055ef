-- An extension asked from the stay's move-out and not in effect yet (unsigned, or signed and unpaid)
-- no longer continues the stay once the stay is shortened before its nights: it would leave the
-- nights between the new move-out and its first night uncharged, yet the stay would run through
-- them. The shortening withdraws it (reason stay_shortened); the carrier asks again from the new
-- move-out if the family still needs more nights.
alter table app.lease_agreements drop constraint lease_agreements_withdrawal_reason_check;
alter table app.lease_agreements add constraint lease_agreements_withdrawal_reason_check
  check (withdrawal_reason in ('declined', 'lapsed', 'cancelled', 'stay_shortened'));
comment on column app.lease_agreements.withdrawal_reason is
  'For a withdrawn addendum: declined (by the landlord), lapsed (unsigned or unpaid when the stay ended), cancelled (the placement was) or stay_shortened (the stay was shortened before the extension took effect). Set with the withdrawal, never changed; null before it was recorded.';
