// A live payment is a record from the moment its checkout opens (pending), settled by the
// processor's notification; a second submission reuses the open checkout; a second charge for what
// was already paid is kept, refunded automatically and announced, never dropped.
import { describe, expect, it } from 'vitest';
import { ownerSql } from '../helpers.ts';
import { amountOf, metadataOf, useProcessorStandIn } from './processor-stand-in.ts';
import { drainJobs } from './fixtures.ts';
import { events, fetchPage, formOf, formsOf, pagePath, payUrl, postForm, signedLease, signLiveLease } from './payment-fixtures.ts';

const { checkouts: sessions, refunds, notify: notifyProcessor } = useProcessorStandIn('whsec_attempts_test');

const notify = (intent: string, type: 'payment_intent.succeeded' | 'payment_intent.payment_failed', session: URLSearchParams) =>
  notifyProcessor({
    id: `evt_${intent}_${type}`, object: 'event', type, account: 'acct_attempts',
    data: {
      object: {
        id: intent, object: 'payment_intent', amount: amountOf(session), amount_received: amountOf(session), currency: 'usd',
        metadata: metadataOf(session), last_payment_error: { message: 'Your card was declined.' },
      },
    },
  });

/** A live placement, fully signed, on a landlord's connected account; its pay page's path. */
async function livePlacement(claim: Record<string, unknown> = {}) {
  const s = await signedLease('live', { claim });
  await ownerSql()`update app.payout_accounts set processor_account_id = 'acct_attempts' where org_id = ${s.providerOrg} and environment = 'live'`;
  await signLiveLease(s.lease.id);
  const path = pagePath(await payUrl(s.api, s.ref));
  const placement = async () => (await s.api.get(`/claims/${s.ref}/placement`)).body.data.homes[0];
  return { ...s, path, placement };
}

/** The request's timeline entries of one type. */
const timelineOf = async (s: { api: { get: (path: string) => Promise<{ body: any }> }; ref: string }, type: string) =>
  ((await s.api.get(`/claims/${s.ref}/timeline`)).body.data as { type: string }[]).filter((e) => e.type === type);

describe('checkout attempts (live, stand-in processor)', () => {
  it('opening a checkout records a pending payment; a second submission goes to the same checkout; the notification settles that record', async () => {
    const s = await livePlacement();
    const form = formOf((await fetchPage(s.path)).text);
    const before = sessions.length;
    const first = await postForm(s.path, form);
    const second = await postForm(s.path, form);
    expect(first.status).toBe(303);
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    expect(sessions.length - before).toBe(1);
    const session = sessions.at(-1)!;
    let home = await s.placement();
    expect(home.payments).toEqual([expect.objectContaining({ status: 'pending', payer: 'carrier', paid_at: null, duplicate_of: null })]);
    expect(metadataOf(session).payment_id).toBe(home.payments[0].id);
    expect(Number(session.get('expires_at'))).toBeGreaterThan(Date.now() / 1000 + 50 * 60);
    // The page still shows what is due (nothing is paid yet) and no outcome of its own.
    expect((await fetchPage(`${s.path}?result=processing`)).text).toContain('Payment submitted');

    expect((await notify(`pi_a_${s.ref}`, 'payment_intent.succeeded', session)).body.data.outcome).toBe('applied');
    home = await s.placement();
    expect(home.payments).toEqual([expect.objectContaining({ id: home.payments[0].id, status: 'succeeded', duplicate_of: null })]);
    expect(home).toMatchObject({ payments_succeeded: 1, booking: { booking_status: 'confirmed' } });
  });

  it('a failed attempt, then the same PaymentIntent retried successfully: one record, succeeded; the failure stays on the timeline', async () => {
    const s = await livePlacement();
    await postForm(s.path, formOf((await fetchPage(s.path)).text));
    const session = sessions.at(-1)!;
    expect((await notify(`pi_f_${s.ref}`, 'payment_intent.payment_failed', session)).body.data.outcome).toBe('applied');
    expect((await s.placement()).payments).toEqual([expect.objectContaining({ status: 'failed', failure_reason: 'Your card was declined.' })]);
    expect((await fetchPage(`${s.path}?result=failed`)).text).toContain('Payment declined');
    const failed = await timelineOf(s, 'payment.failed');
    expect(failed).toEqual([expect.objectContaining({
      summary: `First payment of ${(amountOf(session) / 100).toFixed(2)} USD failed: "Your card was declined.".`,
      detail: expect.objectContaining({ amount: amountOf(session) / 100, failure_reason: 'Your card was declined.' }),
    })]);
    expect((await notify(`pi_f_${s.ref}`, 'payment_intent.succeeded', session)).body.data.outcome).toBe('applied');
    const home = await s.placement();
    expect(home.payments).toEqual([expect.objectContaining({ status: 'succeeded', failure_reason: null })]);
    expect(home.booking).toMatchObject({ booking_status: 'confirmed' });
    expect(await timelineOf(s, 'payment.failed')).toEqual(failed);
    expect(await timelineOf(s, 'payment.succeeded')).toHaveLength(1);
  });

  it('an attempt close to its end is replaced, not reused; the page announces no failure for it', async () => {
    const s = await livePlacement();
    const form = formOf((await fetchPage(s.path)).text);
    await postForm(s.path, form);
    await ownerSql()`update app.payments set checkout_expires_at = now() + interval '2 minutes' where claim_id = ${s.claim.id} and status = 'pending'`;
    const again = await postForm(s.path, form);
    expect(again.headers.get('location')).toBe(`https://checkout.stripe.com/c/pay/cs_test_${sessions.length}`);
    const home = await s.placement();
    expect(home.payments.map((p: any) => [p.status, p.failure_reason])).toEqual([['failed', 'checkout_expired'], ['pending', null]]);
    const page = (await fetchPage(`${s.path}?result=cancelled`)).text;
    expect(page).not.toContain('Payment declined');
    expect(page).toContain('Due now');
    // No charge failed: the timeline shows no failed payment either.
    expect(await timelineOf(s, 'payment.failed')).toEqual([]);
  });

  it('an attempt for an amount no longer due (its payer now pays another share) is replaced, not reused', async () => {
    const s = await livePlacement({ rent_payer: 'carrier', deposit_payer: 'tpa' });
    const [rentShare] = formsOf((await fetchPage(s.path)).text);
    await postForm(s.path, rentShare);
    // The carrier now pays the deposit too: its share is bigger than the checkout it opened.
    expect((await s.api.patch(`/claims/${s.ref}`, { deposit_payer: 'carrier' })).status).toBe(200);
    const [whole] = formsOf((await fetchPage(s.path)).text);
    expect(Number(whole.get('amount_cents'))).toBeGreaterThan(Number(rentShare.get('amount_cents')));
    await postForm(s.path, whole);
    expect(amountOf(sessions.at(-1)!)).toBe(Number(whole.get('amount_cents')));
    expect((await s.placement()).payments.map((p: any) => [p.status, p.failure_reason, p.amount * 100])).toEqual([
      ['failed', 'amount_changed', Number(rentShare.get('amount_cents'))],
      ['pending', null, Number(whole.get('amount_cents'))],
    ]);
  });

  it('a second charge for what was already paid is kept, refunded automatically, and announced; it counts for nothing', async () => {
    const s = await livePlacement();
    const form = formOf((await fetchPage(s.path)).text);
    await postForm(s.path, form);
    const old = sessions.at(-1)!;
    await ownerSql()`update app.payments set checkout_expires_at = now() + interval '2 minutes' where claim_id = ${s.claim.id} and status = 'pending'`;
    await postForm(s.path, form);
    const replacement = sessions.at(-1)!;
    expect((await notify(`pi_new_${s.ref}`, 'payment_intent.succeeded', replacement)).body.data.outcome).toBe('applied');
    // The payer had also finished the old checkout in another tab, just before it closed.
    expect((await notify(`pi_old_${s.ref}`, 'payment_intent.succeeded', old)).body.data.outcome).toBe('applied');

    let home = await s.placement();
    const [first, second] = home.payments;
    expect(first).toMatchObject({ status: 'succeeded', duplicate_of: second.id });
    expect(second).toMatchObject({ status: 'succeeded', duplicate_of: null });
    expect(home.payments_succeeded).toBe(1);
    expect(home.deposit_refunds).toEqual([expect.objectContaining({ payment_id: first.id, status: 'approved', automatic: true, amount: first.amount })]);
    expect((await events(s.c.orgId, 'payment.duplicate')).map((e) => e.payload)).toEqual([
      expect.objectContaining({ payment_id: first.id, duplicate_of: second.id, amount: first.amount, refund_request_id: home.deposit_refunds[0].refund_request_id }),
    ]);
    expect((await events(s.c.orgId, 'payment.succeeded')).length).toBe(1);
    expect((await events(s.c.orgId, 'booking.confirmed')).length).toBe(1);

    // The ledger and the processor agree: the duplicate and its refund are posted, the refund in flight.
    const { consoleCommand } = await import('../helpers.ts');
    const reconcile = () => consoleCommand<{ differences: number; data: Record<string, unknown>[] }>('ledger', 'reconcile', '--org', s.c.orgId);
    expect(await reconcile()).toMatchObject({ differences: 0, data: [expect.objectContaining({ kind: 'refund_in_flight', payment_id: first.id })] });

    // The refund job refunds it on the landlord's account, the platform fee with it.
    await drainJobs(s.c.orgId);
    expect(refunds.at(-1)!.get('payment_intent')).toBe(`pi_old_${s.ref}`);
    expect(refunds.at(-1)!.get('amount')).toBe(String(Math.round(first.amount * 100)));
    home = await s.placement();
    expect(home.payments[0]).toMatchObject({ status: 'refunded', refunded_amount: first.amount });
    expect(home.deposit_refunds[0]).toMatchObject({ status: 'refunded' });
    // Its life: asked and approved at once by the service, then issued.
    const history = home.deposit_refunds[0].history as { status: string; at: string }[];
    expect(history.map((step) => step.status)).toEqual(['pending_owner_approval', 'approved', 'refunded']);
    expect(history.map((step) => step.at)).toEqual([home.deposit_refunds[0].requested_at, home.deposit_refunds[0].decided_at, home.deposit_refunds[0].refunded_at]);
    expect(history[0].at <= history[1].at && history[1].at <= history[2].at).toBe(true);
    expect(await ownerSql()`select moved_by from app.refund_request_changes where request_id = ${home.deposit_refunds[0].refund_request_id} order by seq`)
      .toEqual([{ moved_by: 'service' }, { moved_by: 'service' }, { moved_by: 'processor' }]);
    expect(await reconcile()).toMatchObject({ differences: 0, count: 0 });
    // The operator reads the refund call, done with the processor's reference, beside both checkouts.
    const calls = await consoleCommand<{ data: Record<string, unknown>[] }>('calls', 'list', '--org', s.c.orgId, '--kind', 'payments');
    expect(calls.data).toEqual(expect.arrayContaining([
      expect.objectContaining({ call: 'issue_refund', reference: s.ref, status: 'done', provider_ref: `re_${refunds.length}`, amount_cents: Math.round(first.amount * 100), attempts: 1 }),
      expect.objectContaining({ call: 'checkout', status: 'refunded', provider_ref: `pi_old_${s.ref}` }),
      expect.objectContaining({ call: 'checkout', status: 'paid', provider_ref: `pi_new_${s.ref}` }),
    ]));
    expect((await events(s.c.orgId, 'payment.refunded')).map((e) => e.payload.refund_request_id)).toEqual([home.deposit_refunds[0].refund_request_id]);
    const timeline = (await s.api.get(`/claims/${s.ref}/timeline`)).body.data.map((e: any) => e.type);
    expect(timeline).toEqual(expect.arrayContaining(['payment.succeeded', 'payment.duplicate', 'payment.refunded']));
    expect(timeline.filter((t: string) => t === 'payment.succeeded')).toHaveLength(1);
    // The carrier's own refund request is not blocked by the automatic one, and never picks the duplicate.
    const asked = await s.api.post(`/claims/${s.ref}/refund-request`, { property_id: s.home, amount: 10, goodwill: true });
    expect(asked.status).toBe(202);
    expect((await s.placement()).deposit_refunds.at(-1)).toMatchObject({ payment_id: second.id, automatic: false });
    // The pay page shows it as what it is.
    expect((await fetchPage(s.path)).text).toContain('Second charge, refunded automatically');
  });
});

describe('calls list (operator console): what went to the e-signature provider and the processor', () => {
  it('shows the contract job retrying and why, each checkout open, paid or failed with why; never a checkout address or pay link', async () => {
    const { consoleCommand } = await import('../helpers.ts');
    type Calls = { data: Record<string, unknown>[]; count: number; by_status: Record<string, number> };
    // Live, the landlord without a contact address: the contract job waits and retries, saying what is missing.
    const s = await livePlacement();
    await postForm(s.path, formOf((await fetchPage(s.path)).text));
    const session = sessions.at(-1)!;
    const all = await consoleCommand<Calls>('calls', 'list', '--org', s.c.orgId, '--env', 'live');
    expect(all.data).toEqual([
      expect.objectContaining({ kind: 'payments', call: 'checkout', reference: s.ref, status: 'open', provider_ref: `cs_test_${sessions.length}`, amount_cents: amountOf(session), currency: 'usd', why: null }),
      expect.objectContaining({
        kind: 'esign', call: 'send_contract', reference: s.ref, status: 'retrying', why: expect.stringContaining('no contact address (operator console: org contact)'), attempts: 1, max_attempts: 8,
        next_attempt_at: expect.any(Date),
      }),
    ]);
    expect(all.by_status).toMatchObject({ open: 1, retrying: 1, failed: 0 });
    // The landlord's organisation sees the checkout taken on its account too.
    expect((await consoleCommand<Calls>('calls', 'list', '--org', s.providerOrg, '--kind', 'payments')).data).toEqual([expect.objectContaining({ call: 'checkout', reference: s.ref })]);
    const text = JSON.stringify(all);
    expect(text).not.toContain('checkout.stripe.com');
    expect(text).not.toContain('/pay/');

    await notify(`pi_calls_${s.ref}`, 'payment_intent.payment_failed', session);
    expect((await consoleCommand<Calls>('calls', 'list', '--org', s.c.orgId, '--kind', 'payments', '--status', 'failed')).data).toEqual([
      expect.objectContaining({ call: 'checkout', status: 'failed', why: 'Your card was declined.', provider_ref: `pi_calls_${s.ref}` }),
    ]);
    expect((await consoleCommand<Calls>('calls', 'list', '--org', s.c.orgId, '--kind', 'esign')).data).toEqual([expect.objectContaining({ call: 'send_contract' })]);
    await expect(consoleCommand('calls', 'list', '--kind', 'email')).rejects.toMatchObject({ code: 'invalid_option' });
  });
});
