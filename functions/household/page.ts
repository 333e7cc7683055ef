// The household's page, rendered from data only (no JavaScript): the home as listed, what the
// household can answer now as plain forms, and, once signed and paid, the stay. Every value is
// escaped. What it shows is the placement module's HouseholdView (shared/placements/commands/household-page.ts);
// every word comes from the household's language's catalogue (shared/i18n).

import { escapeHtml, layout } from '../../shared/http/page.ts';
import type { HouseholdMoney, HouseholdView } from '../../shared/placements/commands/household-page.ts';
import { chargeParts, type ChargePart } from '../../shared/placements/billing.ts';
import { languages, catalogues, type Words } from '../../shared/i18n/index.ts';

/** A part with what it costs, as the money table prices it. */
function partWithAmount(w: Words, part: ChargePart, money: HouseholdMoney | null): string {
  if (!money) return w.m.part[part];
  const m = (cents: number) => w.money(cents, money.currency);
  const amount = { rent: w.m.perMonth(m(money.rentPerMonth)), deposit: m(money.deposits), fees: w.m.withFirstPayment(m(money.feesFirst)) }[part];
  return `${w.m.part[part]}, ${amount}`;
}

/** What the stay costs, and who pays which part: the household itself, or its insurer. */
function theMoney(w: Words, view: HouseholdView): string {
  const { money, householdPays } = view;
  const rows = money
    ? [
        // The amounts stay short (they do not wrap): what they are for is said on the left.
        [w.m.rowRent, w.money(money.rentPerMonth, money.currency)],
        ...(money.feesFirst > 0 ? [[w.m.rowFees, w.money(money.feesFirst, money.currency)]] : []),
        ...(money.deposits > 0 ? [[w.m.rowDeposits, w.money(money.deposits, money.currency)]] : []),
      ].map(([label, amount]) => `<tr><td>${escapeHtml(label)}</td><td class="amount">${escapeHtml(amount)}</td></tr>`).join('')
    : '';
  const table = rows ? `<h3>${escapeHtml(w.m.moneyHeading)}</h3><table>${rows}</table>` : '';
  if (householdPays.length === 0) return `${table}<p><strong>${escapeHtml(w.m.payNothing)}</strong> ${escapeHtml(w.m.payNothingText)}</p>`;
  const insurer = chargeParts.filter((part) => !householdPays.includes(part));
  const when = view.state === 'signed' || view.state === 'booked' ? w.m.whenDue : w.m.whenSigned;
  const pays = w.list(householdPays.map((part) => partWithAmount(w, part, money)));
  return `${table}<p><strong>${escapeHtml(w.m.youPay)}</strong> ${escapeHtml(w.m.youPayText(pays, when))}</p>
${insurer.length > 0 ? `<p><strong>${escapeHtml(w.m.insurerPays)}</strong> ${escapeHtml(w.list(insurer.map((part) => w.m.part[part])))}.</p>` : ''}`;
}

/** Amenities as a provider lists them (often codes such as washer_dryer), in words. */
export function amenityName(w: Words, amenity: string): string {
  const code = amenity.trim().toLowerCase();
  if (Object.hasOwn(w.m.amenity, code)) return w.m.amenity[code as keyof typeof w.m.amenity];
  // A code the catalogue does not know is shown as the provider wrote it, in words.
  const words = amenity.trim().replace(/[_-]+/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const capitalised = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

/** Links to the page in the other languages it has, each named in its own language. */
function languageSwitch(w: Words): string {
  const links = languages.filter((language) => language !== w.language)
    .map((language) => `<a href="?lang=${language}" hreflang="${language}" lang="${language}">${escapeHtml(catalogues[language].languageName)}</a>`);
  return `<nav class="muted" aria-label="${escapeHtml(w.m.languageSwitch)}">${escapeHtml(w.m.languageSwitch)}: ${links.join(' · ')}</nav>`;
}

export function renderHouseholdPage(view: HouseholdView, token: string, w: Words): string {
  const { m } = w;
  const home = view.home;
  // A household that proposed dates before applying is told it still has to apply.
  // The header agrees with the lease card below: signed by the household, the landlord countersigns next.
  const state = view.state === 'proposed' && view.actions.includes('apply')
    ? { ...m.state.proposed, text: m.proposedNotApplied }
    : view.state === 'signing' && view.stay?.lease_status === 'policyholder_signed'
      ? { ...m.state.signing, text: m.signedByYou }
      : m.state[view.state];
  const title = home.name ?? home.address;
  const range = (dates: { move_in: string; move_out: string }) => m.range(w.date(dates.move_in), w.date(dates.move_out));
  const parts: string[] = [languageSwitch(w)];
  parts.push(`<section class="card notice" role="status"><h1>${escapeHtml(state.title)}</h1><p>${escapeHtml(state.text)}</p>
${view.declineReason && view.state === 'declined' ? `<p class="muted">${escapeHtml(m.yourReason)} ${escapeHtml(view.declineReason)}</p>` : ''}
${view.landlordReason && view.state === 'landlord_declined' ? `<p class="muted">${escapeHtml(m.landlordSaid)} ${escapeHtml(view.landlordReason)}</p>` : ''}
${view.proposal ? `<p class="muted">${escapeHtml(m.datesProposed)} ${escapeHtml(range(view.proposal))}</p>` : ''}
</section>`);

  const photos = home.image_urls.slice(0, 3).map((url, i) => `<img src="${escapeHtml(url)}" alt="${escapeHtml(m.photo(i + 1, title))}">`).join('');
  const furnished = home.furnished_status && Object.hasOwn(m.furnished, home.furnished_status)
    ? m.furnished[home.furnished_status as keyof typeof m.furnished]
    : null;
  const facts = [
    w.count(home.bedrooms, m.bedrooms),
    w.count(Number(home.bathrooms), m.bathrooms),
    home.sqft ? m.sqft(new Intl.NumberFormat(w.locale).format(home.sqft)) : null,
    furnished,
  ].filter((fact): fact is string => fact !== null);
  const dates = view.stay ? range(view.stay) : m.wanted(w.date(view.wanted.move_in), w.count(view.wanted.months, m.months));
  parts.push(`<section class="card">
${view.environment === 'sandbox' ? `<p><span class="badge">${escapeHtml(m.sandboxHome)}</span></p>` : ''}
<h2>${escapeHtml(title)}</h2>
<p class="muted">${escapeHtml(`${home.address}, ${home.city}, ${home.state} ${home.zip_code}`)}</p>
${photos}
<p>${escapeHtml(facts.join(' · '))}</p>
${home.description ? `<p>${escapeHtml(home.description)}</p>` : ''}
${home.amenities?.length ? `<h3>${escapeHtml(m.amenities)}</h3><ul>${home.amenities.map((a) => `<li>${escapeHtml(amenityName(w, a))}</li>`).join('')}</ul>` : ''}
${home.pet_policy ? `<p><strong>${escapeHtml(m.pets)}</strong> ${escapeHtml(home.pet_policy)}</p>` : ''}
<p><strong>${escapeHtml(m.dates)}</strong> ${escapeHtml(dates)}</p>
${theMoney(w, view)}
</section>`);

  if (view.due) {
    const money = view.money ? w.money(view.due.cents, view.money.currency) : '';
    const what = w.list(view.due.parts.map((part) => m.part[part]));
    // The household's own pay link, signed when pressed: the pay page shows and takes its share alone.
    parts.push(`<section class="card notice"><h2>${escapeHtml(m.dueHeading)}</h2>
<p>${escapeHtml(m.dueLine(capitalised(what), money))}</p>
<a class="button pay" href="${escapeHtml(token)}/pay">${escapeHtml(m.payButton(what, money))}</a>
<p class="muted">${escapeHtml(m.payNote)}</p>
</section>`);
  }

  if (view.state === 'booked' || view.state === 'signing' || view.state === 'signed') {
    parts.push(`<section class="card"><h2>${escapeHtml(m.stayHeading)}</h2>
<p>${escapeHtml(m.stayLine(range(view.stay!), `${home.address}, ${home.city}, ${home.state}`))}</p>
<p class="muted">${escapeHtml(m.lease)} ${escapeHtml(m.leaseStatus[view.stay!.lease_status] ?? view.stay!.lease_status)}.</p>
${home.landlord_contact ? `<p>${escapeHtml(m.landlord)} <a href="mailto:${escapeHtml(home.landlord_contact)}">${escapeHtml(home.landlord_contact)}</a></p>` : ''}
${view.stay!.lease_status === 'fully_signed' ? `<a class="button secondary" href="${escapeHtml(token)}/lease" download>${escapeHtml(m.downloadLease)}</a>` : ''}
</section>`);
  }

  const can = new Set(view.actions);
  if (can.has('apply') || can.has('save')) {
    parts.push(`<section class="card"><h2>${escapeHtml(m.answerHeading)}</h2>
<form method="post">
${can.has('apply') ? `<button class="pay" type="submit" name="action" value="apply">${escapeHtml(m.apply)}</button>` : ''}
${can.has('save') ? `<button class="secondary" type="submit" name="action" value="save">${escapeHtml(m.save)}</button>` : ''}
</form></section>`);
  }
  if (can.has('propose_dates')) {
    parts.push(`<section class="card"><h2>${escapeHtml(m.otherDates)}</h2>
<form method="post">
<input type="hidden" name="action" value="propose_dates">
<label for="move_in">${escapeHtml(m.moveIn)}</label><input id="move_in" name="move_in" type="date" required>
<label for="move_out">${escapeHtml(m.moveOut)}</label><input id="move_out" name="move_out" type="date" required>
<button class="secondary" type="submit">${escapeHtml(m.propose)}</button>
</form></section>`);
  }
  if (can.has('decline')) {
    parts.push(`<section class="card"><h2>${escapeHtml(m.notForYou)}</h2>
<form method="post">
<input type="hidden" name="action" value="decline">
<label for="reason">${escapeHtml(m.whyNot)}</label><textarea id="reason" name="reason" rows="3" maxlength="2000" required></textarea>
<button class="secondary" type="submit">${escapeHtml(m.decline)}</button>
</form></section>`);
  }
  parts.push(`<p class="muted">${escapeHtml(m.footer(view.reference))}</p>`);
  return layout(title, parts.join('\n'), w.locale);
}
