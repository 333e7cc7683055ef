// The statement as an adjuster files it, through the HTTP surface: each entry says what it is in a
// sentence and in fields (the day of the change that posted it), each payer's running balance ends
// at what it owes, what is billed is told apart from what is scheduled, deposits held and returned
// apart from rent, the service fee a refund returns apart from the payer's lines, and the same
// entries come as CSV with Accept: text/csv.
import { describe, expect, it } from 'vitest';
import { insertHome, openClaim } from '../claims/fixtures.ts';
import { ownerSql } from '../helpers.ts';
import { clockAt, drainJobs, inDays, scene } from './fixtures.ts';
import { cents, day, ok, payDue, refund, signBoth, statement } from './stay-fixtures.ts';

interface Totals { charged: number; paid: number; refunded: number; billed: number; scheduled: number; deposits_held: number; deposits_returned: number; payer?: string }
interface Line {
  id: string; kind: string; cause: string; part: string; payer: string; label: string; amount: number; balance_after: number; scheduled: boolean;
  description: string; change_of: string; refund_purpose: string | null; refund_request_id: string | null; charge_type: string; period_start: string;
  nights: { first_night: string; last_night: string; count: number } | null; version: number; debit_account: string; credit_account: string;
}

/** A tiny RFC 4180 reader: quoted fields (with doubled quotes, commas and line breaks inside), CRLF records. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let value = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (value += '"'), i++;
      else if (ch === '"') quoted = false;
      else value += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') row.push(value), (value = '');
    else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(value);
      rows.push(row);
      [row, value] = [[], ''];
      i++;
    } else value += ch;
  }
  expect(value, 'the last record ends with CRLF').toBe('');
  expect(row).toEqual([]);
  return rows;
}

/** Every payer's last balance_after is what it owes: charged - paid + refunded of by_payer. */
function expectBalancesEnd(st: { entries: Line[]; by_payer: Totals[] }) {
  for (const t of st.by_payer) {
    const last = st.entries.filter((e) => e.payer === t.payer).at(-1)!;
    expect(cents(last.balance_after), `${t.payer}'s running balance`).toBe(cents(t.charged) - cents(t.paid) + cents(t.refunded));
  }
  // And each step of it is the entry's amount (a duplicate charge and its automatic refund aside).
  const running = new Map<string, number>();
  for (const e of st.entries) {
    running.set(e.payer, (running.get(e.payer) ?? 0) + (e.cause === 'duplicate' ? 0 : cents(e.amount)));
    expect(cents(e.balance_after), e.description).toBe(running.get(e.payer));
  }
}

/**
 * Double entry: every entry moves its amount from one account to another, so the accounts sum to 0;
 * the payers' accounts hold what they owe, the processor's what it took in less what it gave back.
 */
function expectDoubleEntry(st: { entries: Line[]; totals: Totals; payments: { amount: number; refunded: number }[]; accounts: { account: string; balance: number }[] }) {
  const balance = (account: string) => cents(st.accounts.find((a) => a.account === account)?.balance ?? 0);
  expect(st.accounts.reduce((sum, a) => sum + cents(a.balance), 0), 'the accounts sum to 0').toBe(0);
  expect(balance('payer_rent') + balance('payer_fees') + balance('payer_deposit'), 'what the payers owe').toBe(cents(st.totals.charged) - cents(st.totals.paid) + cents(st.totals.refunded));
  expect(balance('processor'), 'what the processor holds').toBe(st.payments.reduce((sum, p) => sum + cents(p.amount) - cents(p.refunded), 0));
  for (const e of st.entries) {
    expect(e.debit_account, e.description).toBe(`payer_${e.part}`);
    const counter = e.kind === 'payment' || e.kind === 'refund' ? 'processor' : e.part === 'deposit' ? 'deposits_held' : `landlord_${e.part}`;
    expect(e.credit_account, e.description).toBe(counter);
  }
}

function expectBilledAndScheduled(st: { totals: Totals; by_payer: Totals[]; entries: Line[]; as_of: string }) {
  for (const t of [st.totals, ...st.by_payer]) expect(cents(t.billed) + cents(t.scheduled)).toBe(cents(t.charged));
  const scheduled = st.entries.filter((e) => e.scheduled);
  expect(scheduled.every((e) => e.charge_type === 'rent' && e.period_start > st.as_of)).toBe(true);
  expect(cents(st.totals.scheduled)).toBe(scheduled.reduce((sum, e) => sum + cents(e.amount), 0));
}

describe('the statement as an adjuster files it', () => {
  it('each line says what it is; balances, billed and scheduled, deposits, the service fee apart; the same lines as CSV', async () => {
    const s = await scene();
    const moveIn = inDays(40);
    const home = await insertHome(s.providerOrg, { environment: 'sandbox', monthly_rate_cents: 300_000, cleaning_fee_cents: 15_000 });
    await ownerSql()`update app.properties set utilities_included = false, utilities_monthly_cents = 20000 where id = ${home}`;
    // Rent paid by the carrier; the deposit and the fees by the household (the policyholder).
    const request = await openClaim(s.api, { target_move_in: moveIn, est_length_months: 3, rent_payer: 'carrier', deposit_payer: 'policyholder', fees_payer: 'policyholder' });
    await ok(s.api.post(`/claims/${request.claim_ref}/options`, { property_id: home, action: 'place', approve_budget: true }));
    await ok(s.api.post(`/claims/${request.claim_ref}/dates`, { property_id: home, move_in: moveIn, move_out: day(moveIn, 100) }));
    await drainJobs(s.c.orgId);
    const stay = { ref: request.claim_ref, home };
    await signBoth(s.api, stay);
    await payDue(s.api, stay);

    // Signed and paid on the wall clock's day: as_of.
    const signed = await statement(s.api, stay);
    const signedOn: string = signed.as_of;
    expect(signedOn).toBe(new Date().toISOString().slice(0, 10));
    const rent = signed.entries.find((e: Line) => e.kind === 'charge' && e.label === 'Rent' && e.charge_type === 'initial');
    expect(rent.description).toBe(`Rent ${moveIn} to ${rent.nights.last_night}, charged on ${signedOn} by the signed lease (version ${rent.version})`);
    expect(rent.change_of).toBe(signedOn);
    const deposit = signed.entries.find((e: Line) => e.kind === 'charge' && e.part === 'deposit');
    expect(deposit.description).toMatch(/^Security deposit \(refundable\) of the first payment, charged on /);
    const paid = signed.entries.find((e: Line) => e.kind === 'payment' && e.part === 'rent');
    expect(paid.description).toBe(`Payment by the insurance carrier of the rent of the first payment, on ${signedOn}`);
    expect(signed.entries.find((e: Line) => e.kind === 'payment' && e.part === 'deposit').description)
      .toBe(`Payment by the policyholder of the deposit of the first payment, on ${signedOn}`);
    // The later months are scheduled, not billed yet; the first payment is billed and paid.
    expect(signed.totals.scheduled).toBeGreaterThan(0);
    expect(signed.entries.filter((e: Line) => e.scheduled).every((e: Line) => e.charge_type === 'rent')).toBe(true);
    expect(signed.totals).toMatchObject({ deposits_held: 1500, deposits_returned: 0 });
    expect(signed.by_payer.find((t: Totals) => t.payer === 'policyholder')).toMatchObject({ deposits_held: 1500 });
    expect(signed.by_payer.find((t: Totals) => t.payer === 'carrier')).toMatchObject({ deposits_held: 0 });
    expectBilledAndScheduled(signed);
    expectBalancesEnd(signed);

    // Moved in, the second month paid as it begins, then shortened to 45 nights.
    await clockAt(s.api, moveIn);
    await ok(s.api.post(`/claims/${stay.ref}/confirm-move-in`, { property_id: stay.home }));
    const shortenedOn = day(moveIn, 32);
    await clockAt(s.api, shortenedOn);
    await payDue(s.api, stay);
    await ok(s.api.post(`/claims/${stay.ref}/dates`, { property_id: home, move_in: moveIn, move_out: day(moveIn, 45) }));
    const shortened = await statement(s.api, stay);
    const released = shortened.entries.filter((e: Line) => e.kind === 'release' && e.cause === 'shortened' && e.label === 'Rent');
    const cut = released.find((e: Line) => e.nights!.first_night === day(moveIn, 45))!;
    expect(cut.description).toBe(`Rent ${day(moveIn, 45)} to ${cut.nights!.last_night}, released by the shortening of ${shortenedOn}`);
    expect(cut.change_of).toBe(shortenedOn);
    expect(shortened.totals.refund_due).toBeGreaterThan(0);
    expectBilledAndScheduled(shortened);
    expectBalancesEnd(shortened);
    expectDoubleEntry(shortened);

    // What is owed back to the carrier, refunded: a refund of rent owed back, and the service fee apart.
    const refundedOn = day(moveIn, 33);
    await clockAt(s.api, refundedOn);
    const owed = await refund(s, stay, { payment_id: shortened.payments.filter((p: { payer: string }) => p.payer === 'carrier').at(-1).id });
    const afterRefund = await statement(s.api, stay);
    const back = afterRefund.entries.filter((e: Line) => e.refund_request_id === owed.refund_request_id && e.kind === 'refund');
    expect(back.length).toBeGreaterThan(0);
    for (const e of back) {
      expect(e.refund_purpose).toBe('owed_back');
      expect(e.description).toBe(`Refund to the insurance carrier of the ${e.part} owed back on ${e.charge_type === 'rent' ? `the rent period from ${e.period_start}` : 'the first payment'} (settled beyond what the stay now charges), on ${refundedOn}`);
    }
    const rentBack = back.filter((e: Line) => e.part === 'rent').reduce((sum: number, e: Line) => sum + cents(e.amount), 0);
    expect(afterRefund.service_fees_returned).toEqual([{
      refund_request_id: owed.refund_request_id,
      payment_id: owed.payment_id,
      change_of: refundedOn,
      rent_refunded: rentBack / 100,
      amount: Math.round(rentBack * 0.08) / 100,
      description: `Service fee of ${(Math.round(rentBack * 0.08) / 100).toFixed(2)} USD returned to the landlord: 8 % of the ${(rentBack / 100).toFixed(2)} USD of rent the refund of ${refundedOn} returned (the landlord's cost, not the payer's)`,
    }]);
    // The fee is no payer's line: the carrier's balance and totals hold the refund alone.
    expectBalancesEnd(afterRefund);
    expectDoubleEntry(afterRefund);
    // The fee moved between the landlord's rent and the service: taken with each payment, returned with the refund.
    expect(afterRefund.accounts.map((a: { account: string }) => a.account)).toEqual(
      ['payer_rent', 'payer_fees', 'payer_deposit', 'landlord_rent', 'landlord_fees', 'deposits_held', 'processor', 'service_fee']);

    // Extended back to 80 nights: the released nights are restored.
    const extendedOn = day(moveIn, 34);
    await clockAt(s.api, extendedOn);
    await ok(s.api.post(`/claims/${stay.ref}/extensions`, { property_id: home, move_out: day(moveIn, 80) }), 201);
    await drainJobs(s.c.orgId);
    await signBoth(s.api, stay);
    const extended = await statement(s.api, stay);
    const restored = extended.entries.find((e: Line) => e.kind === 'restore' && e.label === 'Rent' && e.nights!.first_night === day(moveIn, 45))!;
    expect(restored.description).toBe(`Rent ${day(moveIn, 45)} to ${restored.nights!.last_night}, restored at its signed price by the extension of ${extendedOn}`);
    expect(restored.change_of).toBe(extendedOn);
    expectBilledAndScheduled(extended);
    expectBalancesEnd(extended);

    // The deposit returned to the household: a refund of the deposit, and the release that says it is no longer held.
    const returnedOn = day(moveIn, 35);
    await clockAt(s.api, returnedOn);
    const dep = await refund(s, stay, { purpose: 'deposit' });
    expect(dep).toMatchObject({ payer: 'policyholder', amount: 1500 });
    const final = await statement(s.api, stay);
    const [depositBack] = final.entries.filter((e: Line) => e.refund_request_id === dep.refund_request_id && e.kind === 'refund');
    expect(depositBack).toMatchObject({ part: 'deposit', refund_purpose: 'deposit', payer: 'policyholder', amount: 1500, change_of: returnedOn });
    expect(depositBack.description).toBe(`Refund to the policyholder of the deposit of the first payment, on ${returnedOn}`);
    const depositReleased = final.entries.find((e: Line) => e.cause === 'deposit_returned');
    expect(depositReleased.description).toBe(`Security deposit (refundable) of the first payment, returned by the refund of ${returnedOn}: no longer held`);
    expect(final.totals).toMatchObject({ deposits_held: 0, deposits_returned: 1500 });
    // A deposit moves no service fee: only the refund of rent has one.
    expect(final.service_fees_returned.map((f: { refund_request_id: string }) => f.refund_request_id)).toEqual([owed.refund_request_id]);
    expectBilledAndScheduled(final);
    expectBalancesEnd(final);
    // Every existing total keeps its meaning.
    for (const t of [final.totals, ...final.by_payer]) expect(Object.keys(t)).toEqual(expect.arrayContaining(['charged', 'paid', 'refunded', 'due_now', 'refund_due']));

    // The same lines as CSV.
    const csv = await s.api.get(`/claims/${stay.ref}/statement?property_id=${home}`, { accept: 'text/csv' });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
    expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="statement-${stay.ref}-${home}.csv"`);
    expect(csv.headers.get('vary')).toMatch(/Accept/);
    // Commas are quoted: every description with one is a quoted field.
    expect(csv.text).toContain(`"Rent ${day(moveIn, 45)} to ${cut.nights!.last_night}, released by the shortening of ${shortenedOn}"`);
    const [header, ...rows] = parseCsv(csv.text);
    expect(header.slice(0, 3)).toEqual(['change_of', 'description', 'payer']);
    expect(rows).toHaveLength(final.entries.length);
    const col = (row: string[], name: string) => row[header.indexOf(name)];
    rows.forEach((row, i) => {
      const e: Line = final.entries[i];
      expect(row).toHaveLength(header.length);
      expect(col(row, 'id')).toBe(e.id);
      expect(col(row, 'description')).toBe(e.description);
      expect(col(row, 'payer')).toBe(e.payer);
      expect(col(row, 'change_of')).toBe(e.change_of);
      expect(col(row, 'amount')).toMatch(/^-?\d+\.\d\d$/);
      expect(cents(Number(col(row, 'amount')))).toBe(cents(e.amount));
      expect(cents(Number(col(row, 'balance_after')))).toBe(cents(e.balance_after));
      expect(col(row, 'scheduled')).toBe(String(e.scheduled));
      expect(col(row, 'first_night')).toBe(e.nights?.first_night ?? '');
      expect(col(row, 'currency')).toBe('usd');
    });
    // The CSV's amounts add up to the statement's totals.
    const sum = (pick: (row: string[]) => boolean) => rows.filter(pick).reduce((total, row) => total + cents(Number(col(row, 'amount'))), 0);
    expect(sum((row) => !['payment', 'refund'].includes(col(row, 'kind')))).toBe(cents(final.totals.charged));
    expect(sum((row) => col(row, 'kind') === 'refund')).toBe(cents(final.totals.refunded));
  });

  it('JSON unless Accept prefers text/csv (no 406: other types get JSON, as every route answers)', async () => {
    const s = await scene();
    const moveIn = inDays(40);
    const home = await insertHome(s.providerOrg, { environment: 'sandbox' });
    const request = await openClaim(s.api, { target_move_in: moveIn, est_length_months: 3 });
    await ok(s.api.post(`/claims/${request.claim_ref}/options`, { property_id: home, action: 'place', approve_budget: true }));
    const path = `/claims/${request.claim_ref}/statement?property_id=${home}`;
    const typeOf = async (accept?: string) => {
      const res = await s.api.get(path, accept === undefined ? {} : { accept });
      expect(res.status, res.text).toBe(200);
      return res.headers.get('content-type')!.split(';')[0];
    };
    expect(await typeOf()).toBe('application/json');
    expect(await typeOf('*/*')).toBe('application/json');
    expect(await typeOf('application/json')).toBe('application/json');
    expect(await typeOf('application/xml')).toBe('application/json');
    expect(await typeOf('text/csv;q=0.5, application/json')).toBe('application/json');
    expect(await typeOf('text/csv, application/json')).toBe('application/json');
    expect(await typeOf('text/csv')).toBe('text/csv');
    expect(await typeOf('text/*')).toBe('text/csv');
    expect(await typeOf('application/json;q=0.2, text/csv')).toBe('text/csv');
    // Nothing posted yet: the header row alone.
    const empty = await s.api.get(path, { accept: 'text/csv' });
    expect(empty.text.split('\r\n')).toHaveLength(2);
    expect(empty.text.endsWith('\r\n')).toBe(true);
    // Errors stay JSON.
    const missing = await s.api.get(`/claims/${request.claim_ref}/statement`, { accept: 'text/csv' });
    expect(missing.status).toBe(422);
    expect(missing.body.error?.code).toBe('invalid_field');
  });
});
