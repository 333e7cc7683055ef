import type { z } from '@hono/zod-openapi';
import { platformFeeRateBps } from '../properties/earnings.ts';
import { payerWords, type ChargePart, type ChargeType, type Payer } from './billing.ts';
import type { EntryCause, EntryKind } from './ledger.ts';
import type { Statement } from './schemas.ts';

// The statement's lines as an adjuster files them (GET /claims/{reference}/statement): each entry
// said in one English sentence (what it is, for which nights or charge, and the change that posted
// it on which day), and the same lines as CSV (Accept: text/csv). Pure functions: the command reads
// the ledger (./commands/statement.ts), these only word and format what it read.

/** What a refund entry returns: what is owed back, a deposit, the landlord's goodwill, or a second charge refunded automatically. */
export type RefundPurpose = 'owed_back' | 'deposit' | 'goodwill' | 'duplicate';

/** What the sentence of an entry is made of (all of it fixed once the entry is posted). */
export interface LineFacts {
  /** The service fee (kind fee) is no payer's line: the statement lists it apart. */
  kind: Exclude<EntryKind, 'fee'>;
  cause: EntryCause;
  chargeType: ChargeType;
  periodStart: string;
  part: ChargePart;
  /** The ledger's line name (Rent, Cleaning fee, Security deposit (refundable), Payment, Refund, Goodwill, ...). */
  label: string;
  nights: { first_night: string; last_night: string; count: number } | null;
  amountCents: number;
  /** A payment or refund: who paid, or was refunded. */
  payer: Payer | null;
  /** The contract version whose charge the entry belongs to. */
  version: number;
  /** The day of the change that posted it, on the organisation's clock. */
  changeOf: string;
  refundPurpose: RefundPurpose | null;
}

const partWords: Record<ChargePart, string> = { rent: 'rent', deposit: 'deposit', fees: 'fees' };

/** The charge an entry belongs to, as a payer's invoice names it. */
function chargeName(f: Pick<LineFacts, 'chargeType' | 'periodStart'>): string {
  switch (f.chargeType) {
    case 'initial': return 'the first payment';
    case 'rent': return `the rent period from ${f.periodStart}`;
    default: return `the extension from ${f.periodStart}`;
  }
}

/** The nights of an entry, or the charge of a one-off fee or a deposit. */
function what(f: LineFacts): string {
  if (!f.nights) return `${f.label} of ${chargeName(f)}`;
  return f.nights.count === 1 ? `${f.label} ${f.nights.first_night} (1 night)` : `${f.label} ${f.nights.first_night} to ${f.nights.last_night}`;
}

/** The change a cause names, as "the ... of <day>" finishes it. */
const changeWords: Partial<Record<EntryCause, string>> = {
  shortened: 'the shortening',
  extended: 'the extension',
  lapsed: 'the lapse of the extension',
  cancelled: 'the cancellation',
};

const money = (cents: number, currency: string | null) => `${(Math.abs(cents) / 100).toFixed(2)}${currency ? ` ${currency.toUpperCase()}` : ''}`;

/** The sentence of one statement entry, in English as the API answers. */
export function describeLine(f: LineFacts): string {
  const on = f.changeOf;
  const by = `${changeWords[f.cause] ?? 'the change'} of ${on}`;
  const payer = f.payer ? payerWords[f.payer] : 'the payer';
  switch (f.kind) {
    case 'charge':
      return `${what(f)}, charged on ${on} by the signed ${f.chargeType === 'extension' ? 'extension addendum' : 'lease'} (version ${f.version})`;
    case 'release':
      if (f.cause === 'deposit_returned') return `${f.label} of ${chargeName(f)}, returned by the refund of ${on}: no longer held`;
      if (f.cause === 'goodwill') return `Goodwill: ${partWords[f.part]} of ${chargeName(f)} given back by the landlord with the refund of ${on}`;
      return `${what(f)}, released by ${by}`;
    case 'reversal':
      return `${what(f)}, reversed by ${by}`;
    case 'restore':
      return `${what(f)}, restored at its signed price by ${by}`;
    case 'transfer':
      // A pair: one side leaves the charge whose nights were taken back, the other lands on the extension's own charge.
      if (f.cause === 'extended') {
        return f.amountCents < 0
          ? `${f.label}: moved off ${chargeName(f)} (already paid) to the extension's charge by ${by}`
          : `${f.label}: moved onto ${chargeName(f)}, to be paid with it, by ${by}`;
      }
      return f.amountCents > 0 ? `${f.label}: moved back onto ${chargeName(f)} by ${by}` : `${f.label}: moved back off ${chargeName(f)} by ${by}`;
    case 'payment':
      return f.cause === 'duplicate'
        ? `Second charge of ${payer} for the ${partWords[f.part]} of ${chargeName(f)}, already paid, on ${on} (refunded automatically: it counts for nothing)`
        : `Payment by ${payer} of the ${partWords[f.part]} of ${chargeName(f)}, on ${on}`;
    case 'refund':
      switch (f.refundPurpose) {
        case 'deposit': return `Refund to ${payer} of the deposit of ${chargeName(f)}, on ${on}`;
        case 'goodwill': return `Refund to ${payer} of ${partWords[f.part]} of ${chargeName(f)} as the landlord's goodwill, on ${on}`;
        case 'duplicate': return `Automatic refund to ${payer} of the second charge for the ${partWords[f.part]} of ${chargeName(f)}, on ${on}`;
        default: return `Refund to ${payer} of the ${partWords[f.part]} owed back on ${chargeName(f)} (settled beyond what the stay now charges), on ${on}`;
      }
  }
}

/** The sentence of the service fee a refund returned to the landlord with the rent it refunded. */
export function describeServiceFee(feeCents: number, rentCents: number, currency: string | null, on: string): string {
  return `Service fee of ${money(feeCents, currency)} returned to the landlord: ${platformFeeRateBps / 100} % of the ${money(rentCents, currency)} of rent the refund of ${on} returned (the landlord's cost, not the payer's)`;
}

// ---- CSV (RFC 4180) ----

type StatementBody = z.infer<typeof Statement>;
type Line = StatementBody['entries'][number];

/** Major units to the two-decimal text of their cents (never binary-fraction noise). */
export function twoDecimals(amount: number): string {
  const cents = Math.round(amount * 100);
  const abs = Math.abs(cents);
  return `${cents < 0 ? '-' : ''}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** The CSV's columns, in order: a header row names them; one row per entry follows. */
const columns: [string, (e: Line, s: StatementBody) => string | number | null][] = [
  ['change_of', (e) => e.change_of],
  ['description', (e) => e.description],
  ['payer', (e) => e.payer],
  ['kind', (e) => e.kind],
  ['cause', (e) => e.cause],
  ['refund_purpose', (e) => e.refund_purpose],
  ['part', (e) => e.part],
  ['label', (e) => e.label],
  ['charge_type', (e) => e.charge_type],
  ['period_start', (e) => e.period_start],
  ['first_night', (e) => e.nights?.first_night ?? null],
  ['last_night', (e) => e.nights?.last_night ?? null],
  ['nights', (e) => e.nights?.count ?? null],
  ['scheduled', (e) => (e.scheduled ? 'true' : 'false')],
  ['currency', (_e, s) => s.currency],
  ['amount', (e) => twoDecimals(e.amount)],
  ['balance_after', (e) => twoDecimals(e.balance_after)],
  ['version', (e) => e.version],
  ['lease_id', (e) => e.lease_id],
  ['id', (e) => e.id],
  ['adjusts', (e) => e.adjusts],
  ['settled_by', (e) => e.settled_by],
  ['payment_id', (e) => e.payment_id],
  ['refund_request_id', (e) => e.refund_request_id],
  ['posted_at', (e) => e.posted_at],
];

/** One field: quoted when it holds a comma, a double quote or a line break, its quotes doubled (RFC 4180). */
const field = (value: string | number | null) => {
  const text = value === null ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

/** The statement's entries as CSV: a header row, then one row per entry in posting order, CRLF line ends. */
export function statementCsv(statement: StatementBody): string {
  const rows = [columns.map(([name]) => name), ...statement.entries.map((e) => columns.map(([, value]) => field(value(e, statement))))];
  return rows.map((row) => `${row.join(',')}\r\n`).join('');
}

/** The CSV's file name: the request's reference and the home, in characters every file system keeps. */
export const statementFileName = (statement: Pick<StatementBody, 'reference' | 'property_id'>) =>
  `statement-${statement.reference.replace(/[^A-Za-z0-9._-]/g, '_')}-${statement.property_id}.csv`;
