// The pay page's HTML, rendered from data only (no JavaScript): a plain form that works in any
// browser and reads on a phone (viewport meta, one narrow column, large buttons). Every value is
// escaped; nothing from the link or the database is written raw. What it shows is the placement
// module's PayView (shared/placements/commands/pay.ts), in words of the payer's language: the
// household's on its own link, English on the carrier's and the others' (shared/i18n).

import type { PayView } from '../../shared/placements/commands/pay.ts';
import type { DueLine } from '../../shared/placements/commands/pay.ts';
import type { ChargeType } from '../../shared/placements/billing.ts';
import { escapeHtml, layout } from '../../shared/http/page.ts';
import type { Words } from '../../shared/i18n/index.ts';

type Result = keyof Words['m']['pay']['result'];

function bannerFor(result: string, view: PayView): Result | undefined {
  if (result === 'processing' && view.latest === null) return 'processing';
  if (result === 'cancelled') return view.latest === 'succeeded' ? undefined : 'cancelled';
  return view.latest ?? undefined;
}

/** A charge's title: which payment, and for which dates. */
function chargeTitle(w: Words, due: { chargeType: ChargeType; periodStart: string; periodEnd: string }): string {
  if (due.chargeType === 'initial') return w.m.pay.firstPayment;
  const [from, to] = [w.date(due.periodStart), w.date(due.periodEnd)];
  return due.chargeType === 'extension' ? w.m.pay.extensionFrom(from, to) : w.m.pay.rentFrom(from, to);
}

/** A payment made, as its row names it. */
function paidTitle(w: Words, paid: PayView['paid'][number]): string {
  if (paid.duplicate) return w.m.pay.secondCharge;
  if (paid.chargeType === 'initial' || paid.periodStart === null) return w.m.pay.firstPayment;
  return paid.chargeType === 'extension' ? w.m.pay.paidExtension(w.date(paid.periodStart)) : w.m.pay.paidRent(w.date(paid.periodStart));
}

/** A line of a charge in the payer's words: a rent line by which rent it is, another by its name. */
function lineLabel(w: Words, line: DueLine): string {
  const { rent } = w.m.pay;
  const count = (n: number) => new Intl.NumberFormat(w.locale).format(n);
  if (!line.rent) return w.m.pay.line[line.line] ?? line.label;
  switch (line.rent.kind) {
    case 'added': return rent.added(count(line.rent.nights));
    case 'partial': return rent.partial(count(line.rent.nights), count(line.rent.days));
    default: return rent[line.rent.kind];
  }
}

/** The page for a valid link: what is due now, who is paid, and the Pay button(s). */
export function renderPayPage(view: PayView, w: Words, result?: string): string {
  const m = w.m.pay;
  const money = (cents: number) => w.money(cents, view.currency);
  const payee = view.payee ?? m.theLandlord;
  const sandbox = view.environment === 'sandbox';
  const parts: string[] = [];
  // The banner says what the server recorded, never what the address claims: back from a payment
  // (any result), the latest charge's own outcome; a checkout left before paying says so only while
  // nothing newer cleared. Without a charge there is nothing to announce.
  const outcome = result && Object.hasOwn(m.result, result) ? bannerFor(result, view) : undefined;
  if (outcome) {
    const [title, text] = m.result[outcome];
    // Whether the stay is booked is the server's word too: a share paid while another is due books nothing yet.
    const booking = outcome === 'succeeded' ? (view.booked ? m.booked : view.state === 'due' ? m.bookedOnceDue : '') : '';
    const problem = outcome === 'failed' || outcome === 'cancelled';
    parts.push(`<section class="card ${problem ? 'problem' : 'notice'}" role="status"><h2>${escapeHtml(title)}</h2><p class="muted">${escapeHtml(booking ? `${text} ${booking}` : text)}</p></section>`);
  }
  parts.push(`<section class="card">
${sandbox ? `<p><span class="badge">${escapeHtml(m.sandbox)}</span></p>` : ''}
<h1>${escapeHtml(view.home.name)}</h1>
<p class="muted">${escapeHtml(view.home.address)}</p>
<p class="muted">${escapeHtml(m.request(view.reference, payee))}</p>
</section>`);

  if (view.state === 'due' && view.due) {
    const { due } = view;
    const split = due.shares.length > 1;
    parts.push(`<section class="card">
<h2>${escapeHtml(m.dueNow(chargeTitle(w, due)))}</h2>
${split ? `<p class="muted">${escapeHtml(m.split(new Intl.NumberFormat(w.locale).format(due.shares.length)))}</p>` : ''}
</section>`);
    // The household's answer reads in the language of this page (its request's one is not read again).
    const action = view.payer === 'policyholder' ? ` action="?lang=${escapeHtml(w.locale)}"` : '';
    for (const share of due.shares) {
      const payer = m.payer[share.payer];
      const rows = share.lines.map((line) => `<tr><td>${escapeHtml(lineLabel(w, line))}</td><td class="amount">${money(line.cents)}</td></tr>`).join('');
      const table = `<table>${rows}<tr class="total"><td>${escapeHtml(m.total)}</td><td class="amount">${money(share.totalCents)}</td></tr></table>`;
      if (!share.own) {
        // Shown to the carrier, read-only: this payer pays it through its own link.
        parts.push(`<section class="card">
<h3>${escapeHtml(m.paidBy(payer))}</h3>
${table}
<p class="muted">${escapeHtml(m.paysOwn(payer))}</p>
</section>`);
        continue;
      }
      const pay = escapeHtml(split ? m.payShare(money(share.totalCents), payer) : m.payAmount(money(share.totalCents)));
      const buttons = sandbox
        ? `<button class="pay" type="submit" name="outcome" value="succeeded">${pay}</button>
<button class="decline" type="submit" name="outcome" value="failed">${escapeHtml(split ? m.declineShare(payer) : m.decline)}</button>`
        : `<button class="pay" type="submit">${pay}</button>
<p class="muted">${escapeHtml(m.checkoutNote(payee))}</p>`;
      parts.push(`<section class="card">
<h3>${escapeHtml(m.paidBy(payer))}</h3>
${table}
<form method="post"${action}>
<input type="hidden" name="charge_type" value="${due.chargeType}">
<input type="hidden" name="payer" value="${share.payer}">
<input type="hidden" name="amount_cents" value="${share.totalCents}">
${buttons}
</form>
</section>`);
    }
  } else {
    // The service's own reason is in English (the API's language): the other languages say it plainly.
    const note = view.reason === 'other' && w.language === 'en' && view.detail ? view.detail : view.reason ? m.note[view.reason] : '';
    parts.push(`<section class="card ${view.state === 'settled' ? 'notice' : 'problem'}"><h2>${escapeHtml(m.heading[view.state])}</h2><p class="muted">${escapeHtml(note)}</p></section>`);
  }

  if (view.paid.length > 0) {
    const rows = view.paid
      .map((p) => `<tr><td>${escapeHtml(paidTitle(w, p))}<br><span class="muted">${escapeHtml(w.date(p.at))} · ${escapeHtml(m.status[p.status])}${p.payer ? ` · ${escapeHtml(m.payer[p.payer])}` : ''}</span></td><td class="amount">${money(p.cents)}</td></tr>`)
      .join('');
    parts.push(`<section class="card"><h2>${escapeHtml(m.paidHeading)}</h2><table>${rows}</table></section>`);
  }
  return layout(m.title(view.home.name), parts.join('\n'), w.locale);
}

/** A provider's payout setup: what happens next, and the one button that starts it. */
export function renderSetupPage(): string {
  return layout('Set up how you are paid', `<section class="card notice"><h1>Set up how you are paid</h1>
<p>Payments for your homes are made directly to your own account at the payment processor. Continue to give it your bank and identity details; it takes a few minutes.</p>
<form method="post"><button class="pay" type="submit">Continue to the payment processor</button></form>
<p class="muted">This link is for your organisation only and stops working after a short time.</p></section>`);
}
