// The household's page, rendered from data only (no JavaScript): the home as listed, what the
// household can answer now as plain forms, and, once signed and paid, the stay. Every value is
// escaped. What it shows is the placement module's HouseholdView (shared/placements/commands/household.ts).

import { escapeHtml, formatMoney, layout } from '../../shared/http/page.ts';
import type { HouseholdMoney, HouseholdView } from '../../shared/placements/commands/household.ts';
import { chargeParts, type ChargePart } from '../../shared/placements/billing.ts';

const states: Record<HouseholdView['state'], { title: string; text: string }> = {
  open: { title: 'A home for you', text: 'Your insurer found this home for you while yours is repaired. Apply for it, save it for later, propose other dates, or decline it.' },
  saved: { title: 'You saved this home', text: 'Apply for it when you are ready, propose other dates, or decline it.' },
  applied: { title: 'You applied', text: 'The landlord has your application and will answer soon; your insurer will be in touch.' },
  approved: { title: 'The landlord approved your application', text: 'Your insurer sets the dates next; the lease then comes to you by email to sign.' },
  proposed: { title: 'You proposed other dates', text: 'Your insurer will answer your proposal.' },
  declined: { title: 'You declined this home', text: 'Your insurer will look for another home for you.' },
  landlord_declined: { title: 'The landlord could not take your application', text: 'Your insurer will look for another home for you.' },
  signing: { title: 'Your lease', text: 'The lease is out for signature: look for the e-signature email.' },
  signed: { title: 'Your lease is signed', text: 'You and the landlord have signed the lease. The stay is booked once the first payment is made.' },
  booked: { title: 'Your stay is booked', text: 'The stay is paid; the home is yours for these dates.' },
  cancelled: { title: 'This home is no longer offered', text: 'Your insurer cancelled it; they will be in touch.' },
};

const partWords: Record<ChargePart, string> = {
  rent: 'the rent',
  deposit: 'the refundable deposits',
  fees: 'the fees (one-off fees, pet rent, utilities)',
};

/** A list in words: "a", "a and b", "a, b and c". */
const inWords = (words: string[]) => (words.length === 1 ? words[0] : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`);

/** A part with what it costs, as the money table prices it. */
function partWithAmount(part: ChargePart, money: HouseholdMoney | null): string {
  if (!money) return partWords[part];
  const m = (cents: number) => formatMoney(cents, money.currency);
  const amount = { rent: `${m(money.rentPerMonth)} a month`, deposit: m(money.deposits), fees: `${m(money.feesFirst)} with the first payment` }[part];
  return `${partWords[part]}, ${amount}`;
}

/** What the stay costs, and who pays which part: the household itself, or its insurer. */
function theMoney(view: HouseholdView): string {
  const { money, householdPays } = view;
  const rows = money
    ? [
        // The amounts stay short (they do not wrap): what they are for is said on the left.
        ['Rent, each month', formatMoney(money.rentPerMonth, money.currency)],
        ...(money.feesFirst > 0 ? [['Fees with the first payment (one-off fees, pet rent, utilities)', formatMoney(money.feesFirst, money.currency)]] : []),
        ...(money.deposits > 0 ? [['Refundable deposits', formatMoney(money.deposits, money.currency)]] : []),
      ].map(([label, amount]) => `<tr><td>${escapeHtml(label)}</td><td class="amount">${escapeHtml(amount)}</td></tr>`).join('')
    : '';
  const table = rows ? `<h3>The money</h3><table>${rows}</table>` : '';
  if (householdPays.length === 0) return `${table}<p><strong>You pay nothing:</strong> your insurer pays the landlord directly for the stay.</p>`;
  const insurer = chargeParts.filter((part) => !householdPays.includes(part));
  const when = view.state === 'signed' || view.state === 'booked' ? 'from this page when it is due' : 'from this page once the lease is signed';
  return `${table}<p><strong>What you pay:</strong> ${escapeHtml(inWords(householdPays.map((part) => partWithAmount(part, money))))}, directly to the landlord, ${when}.</p>
${insurer.length > 0 ? `<p><strong>Your insurer pays:</strong> ${escapeHtml(inWords(insurer.map((part) => partWords[part])))}.</p>` : ''}`;
}

/** Amenities as a provider lists them (often codes such as washer_dryer), in words. */
const amenityWords: Record<string, string> = {
  wifi: 'Wi-Fi',
  washer_dryer: 'Washer and dryer',
  ac: 'Air conditioning',
  air_conditioning: 'Air conditioning',
  tv: 'TV',
  ev_charging: 'EV charging',
};
export function amenityName(amenity: string): string {
  const known = amenityWords[amenity.trim().toLowerCase()];
  if (known) return known;
  const words = amenity.trim().replace(/[_-]+/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function renderHouseholdPage(view: HouseholdView, token: string): string {
  const home = view.home;
  // A household that proposed dates before applying is told it still has to apply.
  // The header agrees with the lease card below: signed by the household, the landlord countersigns next.
  const state = view.state === 'proposed' && view.actions.includes('apply')
    ? { ...states.proposed, text: 'Your insurer will answer your proposal. You have not applied for the home yet: apply below so the landlord can consider you.' }
    : view.state === 'signing' && view.stay?.lease_status === 'policyholder_signed'
      ? { ...states.signing, text: 'You signed the lease; the landlord countersigns it next.' }
      : states[view.state];
  const title = home.name ?? home.address;
  const parts: string[] = [];
  parts.push(`<section class="card notice" role="status"><h1>${escapeHtml(state.title)}</h1><p>${escapeHtml(state.text)}</p>
${view.declineReason && view.state === 'declined' ? `<p class="muted">Your reason: ${escapeHtml(view.declineReason)}</p>` : ''}
${view.landlordReason && view.state === 'landlord_declined' ? `<p class="muted">The landlord said: ${escapeHtml(view.landlordReason)}</p>` : ''}
${view.proposal ? `<p class="muted">Dates you proposed: ${escapeHtml(view.proposal.move_in)} to ${escapeHtml(view.proposal.move_out)}</p>` : ''}
</section>`);

  const photos = home.image_urls.slice(0, 3).map((url, i) => `<img src="${escapeHtml(url)}" alt="Photo ${i + 1} of ${escapeHtml(title)}">`).join('');
  const facts = [
    `${home.bedrooms} bedroom${home.bedrooms === 1 ? '' : 's'}`,
    `${Number(home.bathrooms)} bathroom${Number(home.bathrooms) === 1 ? '' : 's'}`,
    home.sqft ? `${home.sqft} sq ft` : null,
    home.furnished_status ? home.furnished_status : null,
  ].filter((fact): fact is string => fact !== null);
  parts.push(`<section class="card">
${view.environment === 'sandbox' ? '<p><span class="badge">SANDBOX: a test home</span></p>' : ''}
<h2>${escapeHtml(title)}</h2>
<p class="muted">${escapeHtml(`${home.address}, ${home.city}, ${home.state} ${home.zip_code}`)}</p>
${photos}
<p>${escapeHtml(facts.join(' · '))}</p>
${home.description ? `<p>${escapeHtml(home.description)}</p>` : ''}
${home.amenities?.length ? `<h3>Amenities</h3><ul>${home.amenities.map((a) => `<li>${escapeHtml(amenityName(a))}</li>`).join('')}</ul>` : ''}
${home.pet_policy ? `<p><strong>Pets:</strong> ${escapeHtml(home.pet_policy)}</p>` : ''}
<p><strong>Dates:</strong> ${view.stay ? `${escapeHtml(view.stay.move_in)} to ${escapeHtml(view.stay.move_out)}` : `from about ${escapeHtml(view.wanted.move_in)}, for about ${view.wanted.months} month${view.wanted.months === 1 ? '' : 's'}`}</p>
${theMoney(view)}
</section>`);

  if (view.due) {
    const money = view.money ? formatMoney(view.due.cents, view.money.currency) : '';
    const what = inWords(view.due.parts.map((part) => partWords[part]));
    // The household's own pay link, signed when pressed: the pay page shows and takes its share alone.
    parts.push(`<section class="card notice"><h2>Due now from you</h2>
<p>${escapeHtml(`${what[0].toUpperCase()}${what.slice(1)}: ${money}.`)}</p>
<a class="button pay" href="${escapeHtml(token)}/pay">${escapeHtml(`Pay ${what}, ${money}`)}</a>
<p class="muted">You pay on the secure payment page, directly to the landlord.</p>
</section>`);
  }

  if (view.state === 'booked' || view.state === 'signing' || view.state === 'signed') {
    parts.push(`<section class="card"><h2>Your stay</h2>
<p>${escapeHtml(view.stay!.move_in)} to ${escapeHtml(view.stay!.move_out)} at ${escapeHtml(`${home.address}, ${home.city}, ${home.state}`)}.</p>
<p class="muted">Lease: ${escapeHtml(leaseWords[view.stay!.lease_status] ?? view.stay!.lease_status)}.</p>
${home.landlord_contact ? `<p>The landlord: <a href="mailto:${escapeHtml(home.landlord_contact)}">${escapeHtml(home.landlord_contact)}</a></p>` : ''}
${view.stay!.lease_status === 'fully_signed' ? `<a class="button secondary" href="${escapeHtml(token)}/lease" download>Download your signed lease (PDF)</a>` : ''}
</section>`);
  }

  const can = new Set(view.actions);
  if (can.has('apply') || can.has('save')) {
    parts.push(`<section class="card"><h2>Your answer</h2>
<form method="post">
${can.has('apply') ? '<button class="pay" type="submit" name="action" value="apply">Apply for this home</button>' : ''}
${can.has('save') ? '<button class="secondary" type="submit" name="action" value="save">Save it for later</button>' : ''}
</form></section>`);
  }
  if (can.has('propose_dates')) {
    parts.push(`<section class="card"><h2>Other dates</h2>
<form method="post">
<input type="hidden" name="action" value="propose_dates">
<label for="move_in">Move in</label><input id="move_in" name="move_in" type="date" required>
<label for="move_out">Move out</label><input id="move_out" name="move_out" type="date" required>
<button class="secondary" type="submit">Propose these dates</button>
</form></section>`);
  }
  if (can.has('decline')) {
    parts.push(`<section class="card"><h2>Not for you?</h2>
<form method="post">
<input type="hidden" name="action" value="decline">
<label for="reason">Why not? (your insurer reads this)</label><textarea id="reason" name="reason" rows="3" maxlength="2000" required></textarea>
<button class="secondary" type="submit">Decline this home</button>
</form></section>`);
  }
  parts.push(`<p class="muted">Request ${escapeHtml(view.reference)}. This page is yours alone: do not share its link.</p>`);
  return layout(title, parts.join('\n'));
}

const leaseWords: Record<string, string> = {
  awaiting_lease: 'being prepared',
  sent_for_signature: 'sent to you for signature',
  policyholder_signed: 'signed by you; with the landlord to countersign',
  fully_signed: 'signed by you and the landlord',
};
