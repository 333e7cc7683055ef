// No night is booked twice, whatever mix of imports and stays a home sees: random sequences of
// another channel's calendar changing (read by a fetch), stays placed on the home, and stays
// shortened or extended (re-dated before signing), checked after every step against a reference
// model of the documented rules written apart from the service:
// - a stay's dates are accepted exactly when every night they add is free: taken neither by the
//   imported calendar as last read nor by another stay (409 dates_unavailable otherwise);
// - the service's holds are the model's stays, night for night, and never share a night;
// - the imported blocks are the feed's nights as last read, and a stay is never undone by them;
// - right after a fetch, the home's open conflicts cover exactly the nights both the feed and a stay take.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claimBody, sourced } from '../claims/fixtures.ts';
import { client, createKey } from '../helpers.ts';
import { drainJobs, scene } from '../placements/fixtures.ts';
import { useReceiver } from '../webhooks/support.ts';

const runs = Number(process.env.CALENDAR_PROPERTY_RUNS ?? 12);
const seed = Number(process.env.CALENDAR_PROPERTY_SEED ?? 20261126);

const receiver = useReceiver();

// The reference model: nights as day offsets from today, sets of them, and the rules above.

const dayMs = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);
const day = (offset: number) => new Date(Date.parse(`${today()}T00:00:00Z`) + offset * dayMs).toISOString().slice(0, 10);
const offsetOf = (iso: string) => Math.round((Date.parse(`${iso}T00:00:00Z`) - Date.parse(`${today()}T00:00:00Z`)) / dayMs);
/** The nights [from, to): a stay from move-in to move-out, or an event from check-in to check-out. */
const nights = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
const nightsOfBlocks = (blocks: { start_date: string; end_date: string }[]) =>
  blocks.flatMap((b) => nights(offsetOf(b.start_date), offsetOf(b.end_date) + 1));
const sorted = (xs: Iterable<number>) => [...xs].sort((a, b) => a - b);

interface ModelStay { ref: string; moveIn: number; moveOut: number }
interface Model { imported: Set<number>; stays: ModelStay[] }

const heldBy = (m: Model, except?: ModelStay) => new Set(m.stays.filter((s) => s !== except).flatMap((s) => nights(s.moveIn, s.moveOut)));
const free = (m: Model, wanted: number[], except?: ModelStay) => {
  const held = heldBy(m, except);
  return wanted.every((n) => !m.imported.has(n) && !held.has(n));
};

// The commands.

const event = fc.record({ start: fc.integer({ min: 1, max: 160 }), length: fc.integer({ min: 1, max: 25 }) });
const step = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('import' as const), events: fc.array(event, { maxLength: 3 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('book' as const), moveIn: fc.integer({ min: 1, max: 120 }), nights: fc.integer({ min: 32, max: 70 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('shorten' as const), pick: fc.nat(), by: fc.integer({ min: 1, max: 20 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('extend' as const), pick: fc.nat(), by: fc.integer({ min: 1, max: 30 }) }) },
);
type Step = typeof step extends fc.Arbitrary<infer S> ? S : never;

const compact = (iso: string) => iso.replaceAll('-', '');
const calendar = (events: { start: number; length: number }[]) => [
  'BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Test channel//EN',
  ...events.flatMap((e, i) => [
    'BEGIN:VEVENT', `UID:r${i}@channel.test`, `DTSTART;VALUE=DATE:${compact(day(e.start))}`,
    `DTEND;VALUE=DATE:${compact(day(e.start + e.length))}`, 'SUMMARY:Reserved', 'END:VEVENT',
  ]),
  'END:VCALENDAR', '',
].join('\r\n');

type World = Awaited<ReturnType<typeof world>>;

/** A home of a new provider with one imported calendar (empty at first), and a carrier to place on it. */
async function world() {
  const s = await scene('sandbox', { home: { environment: 'sandbox' } });
  const provider = client((await createKey(s.providerOrg, 'sandbox')).key);
  const path = `/channel-${crypto.randomUUID()}.ics`;
  receiver.answer(path, { body: calendar([]), headers: { 'content-type': 'text/calendar' } });
  const registered = await provider.post(`/properties/${s.home}/calendar-feeds`, { url: receiver.url(path), name: 'Channel' });
  expect(registered.status, registered.text).toBe(201);
  await drainJobs(s.providerOrg);
  return { s, provider, path, feed: registered.body.data.id as string, firstRef: s.ref as string | undefined };
}

/** A request to place on the home: the scene's own first, then new ones. */
async function newRequest(w: World, moveIn: string): Promise<string> {
  if (w.firstRef) {
    const ref = w.firstRef;
    w.firstRef = undefined;
    return ref;
  }
  const created = await w.s.api.post('/claims', claimBody({ target_move_in: moveIn, est_length_months: 2 }));
  expect(created.status, created.text).toBe(201);
  await sourced(created.body.data.id);
  return created.body.data.claim_ref;
}

const setDates = (w: World, ref: string, moveIn: number, moveOut: number) =>
  w.s.api.post(`/claims/${ref}/dates`, { property_id: w.s.home, move_in: day(moveIn), move_out: day(moveOut) });

/** Answers whether the service accepted the dates, checking it answered as the model says. */
function expectAnswer(res: { status: number; text: string; body: any }, accepted: boolean, what: string) {
  if (accepted) expect(res.status, `${what}: ${res.text}`).toBe(200);
  else expect([res.status, res.body.error?.code], `${what}: ${res.text}`).toEqual([409, 'dates_unavailable']);
}

async function run(w: World, m: Model, st: Step): Promise<void> {
  const what = JSON.stringify(st);
  switch (st.kind) {
    case 'import': {
      receiver.answer(w.path, { body: calendar(st.events), headers: { 'content-type': 'text/calendar' } });
      expect((await w.provider.post(`/properties/${w.s.home}/calendar-feeds/${w.feed}/refresh`, {})).status).toBe(202);
      await drainJobs(w.s.providerOrg);
      m.imported = new Set(st.events.flatMap((e) => nights(e.start, e.start + e.length)));
      return;
    }
    case 'book': {
      const ref = await newRequest(w, day(st.moveIn));
      const placed = await w.s.api.post(`/claims/${ref}/options`, { property_id: w.s.home, action: 'place', approve_budget: true });
      if (placed.status === 400 && placed.body.error?.code === 'could_not_place') {
        // Placing looks at the request's own window (target_move_in for est_length_months): refused only
        // over nights that are taken, and it names them.
        const named = nightsOfBlocks(placed.body.error.conflicts as { start_date: string; end_date: string }[]);
        const taken = heldBy(m);
        expect(named.some((n) => taken.has(n) || m.imported.has(n)), `${what}: refused over free nights: ${placed.text}`).toBe(true);
        return;
      }
      expect(placed.status, placed.text).toBe(200);
      const stay = { ref, moveIn: st.moveIn, moveOut: st.moveIn + st.nights };
      const accepted = free(m, nights(stay.moveIn, stay.moveOut));
      expectAnswer(await setDates(w, ref, stay.moveIn, stay.moveOut), accepted, what);
      if (accepted) m.stays.push(stay);
      return;
    }
    case 'shorten':
    case 'extend': {
      if (m.stays.length === 0) return;
      const stay = m.stays[st.pick % m.stays.length];
      // Never below the shortest stay the service takes (30 nights).
      const moveOut = st.kind === 'extend' ? stay.moveOut + st.by : Math.max(stay.moveIn + 32, stay.moveOut - st.by);
      if (moveOut === stay.moveOut) return;
      const accepted = free(m, nights(stay.moveIn, moveOut), stay);
      expectAnswer(await setDates(w, stay.ref, stay.moveIn, moveOut), accepted, what);
      if (accepted) stay.moveOut = moveOut;
      return;
    }
  }
}

/** The invariants, against the home's calendar and its conflicts as they stand. */
async function check(w: World, m: Model, after: Step | 'registration') {
  const what = `after ${JSON.stringify(after)}`;
  const blocks = (await w.provider.get(`/properties/${w.s.home}/availability`)).body.data as { source: string; start_date: string; end_date: string }[];
  const held = nightsOfBlocks(blocks.filter((b) => b.source === 'service'));
  expect(held.length, `${what}: a night held twice`).toBe(new Set(held).size);
  expect(sorted(held), `${what}: the stays' nights`).toEqual(sorted(heldBy(m)));
  const imported = nightsOfBlocks(blocks.filter((b) => b.source === 'ical'));
  expect(sorted(new Set(imported)), `${what}: the imported nights`).toEqual(sorted(m.imported));
  if (after !== 'registration' && after.kind === 'import') {
    const open = nightsOfBlocks((await w.provider.get(`/properties/${w.s.home}`)).body.data.calendar_conflicts);
    const both = [...heldBy(m)].filter((n) => m.imported.has(n));
    expect(sorted(new Set(open)), `${what}: the open conflicts`).toEqual(sorted(both));
  }
}

describe('the nights of a home under random imports and stays', () => {
  it(`never books a night twice and records every overlap as a conflict, over ${runs} sequences (seed ${seed})`, { timeout: 600_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 12 }), async (steps) => {
        const w = await world();
        const model: Model = { imported: new Set(), stays: [] };
        await check(w, model, 'registration');
        for (const st of steps) {
          await run(w, model, st);
          await check(w, model, st);
        }
      }),
      { numRuns: runs, seed, endOnFailure: true },
    );
  });
});
