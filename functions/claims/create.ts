import type { Tx } from '../../shared/db/client.ts';
import { inOneWrite, withTenant, type Caller } from '../../shared/db/tenant.ts';
import { DomainError, invalid } from '../../shared/domain-errors.ts';
import { announceStatus, statusAnnouncement } from '../../shared/claims/lifecycle.ts';
import { initialStatus } from '../../shared/claims/status.ts';
import { enqueue, jobInsert } from '../../shared/jobs/queue.ts';
import { runAfterCommit } from '../../shared/jobs/after-commit.ts';
import { analyzeAfterBulkLoad } from '../../shared/db/statistics.ts';
import {
  answeredByDatabase, claimsByExternalId, insertClaims, isRefusal, newClaimRow, plainInsertClaims, zipCentroids, type CreatedRow, type NewClaimRow,
} from './repository.ts';
import type { CreateClaimInput } from './schemas.ts';
import { sourceNewRequests } from '../../shared/claims/sourcing.ts';

// Creating housing requests, one or a batch, the same way: set-based inserts, external_id
// idempotency arbitrated by the database's unique index (race-safe), creation announced through the
// outbox, and sourcing started at once: a durable job queued in the same transaction and started
// right after the commit, so the answer does not wait for matching and the crawl, and a process that
// dies after the commit loses nothing (the scheduler runs the job).

export type CreateOutcome = { ok: true; row: CreatedRow; idempotent: boolean } | { ok: false; error: DomainError };

const couldNotCreate = () =>
  invalid('could_not_create', 'The request could not be written. Nothing was created; check the values and retry, or contact support with the X-Request-Id.');

/** One order for every transaction's inserts (see insertIsolated): by code unit, the same on every runtime. */
function byExternalId(a: NewClaimRow, b: NewClaimRow): number {
  const [x, y] = [a.external_id ?? '', b.external_id ?? ''];
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Inserts set-based; when the database refuses the set, each row is tried alone, so one refused item
 * never fails the others. Returns the inserted row or the error, per row.
 * Rows go in external_id order: an insert waits on another transaction's uncommitted row with the
 * same external_id, so two batches naming the same ids in different orders would otherwise each
 * hold one the other waits for (a deadlock, failing one of them).
 */
async function insertIsolated(tx: Tx, rows: NewClaimRow[]): Promise<Map<NewClaimRow, CreatedRow | DomainError>> {
  const ordered = [...rows].sort(byExternalId);
  const outcome = new Map<NewClaimRow, CreatedRow | DomainError>();
  try {
    const inserted = new Map((await insertClaims(tx, ordered)).map((r) => [r.claim_ref, r]));
    for (const row of ordered) if (inserted.has(row.claim_ref)) outcome.set(row, inserted.get(row.claim_ref)!);
  } catch (error) {
    if (!isRefusal(error)) throw error;
    for (const row of ordered) {
      try {
        const [inserted] = await insertClaims(tx, [row]);
        if (inserted) outcome.set(row, inserted);
      } catch (itemError) {
        if (!isRefusal(itemError)) throw itemError;
        outcome.set(row, couldNotCreate());
      }
    }
  }
  return outcome;
}

/**
 * Where matching measures from for each valid input: its coordinates, else its ZIP's centroid (one
 * query for all). An input in the US whose ZIP is unknown and that sends no coordinates is refused.
 */
async function origins(tx: Tx, inputs: (CreateClaimInput | DomainError)[]) {
  const zips = inputs.flatMap((input) => (input instanceof DomainError || input.loss_lat !== undefined ? [] : [input.loss_zip.slice(0, 5)]));
  const centroids = await zipCentroids(tx, zips);
  return inputs.map((input) => {
    if (input instanceof DomainError) return input;
    if (input.loss_lat !== undefined && input.loss_lng !== undefined) return { lat: input.loss_lat, lng: input.loss_lng };
    return (
      centroids.get(input.loss_zip.slice(0, 5)) ??
      invalid('invalid_field', 'loss_zip: is not a known US ZIP code; check it, or send loss_lat and loss_lng.', 'loss_zip')
    );
  });
}

const announcementsOf = (rows: readonly Pick<CreatedRow, 'id' | 'claim_ref' | 'external_id'>[]) =>
  rows.map((row) => ({ request_id: row.id, reference: row.claim_ref, external_id: row.external_id, status: initialStatus, previous_status: null }));

/**
 * The usual creation, in one round trip: every input valid and located by its own coordinates, and
 * every row new. The insert, the sourcing job and the announcement travel with begin and the commit
 * in one write (inOneWrite). Anything unusual (an external_id met before, a value the database
 * refuses, a claim_ref drawn twice, an announcement that cannot be recorded) fails that transaction,
 * which then changed nothing, and undefined sends the creation the general way. Undefined too when
 * an input is not of that kind.
 */
async function createInOneWrite(caller: Caller, inputs: (CreateClaimInput | DomainError)[]) {
  const located = inputs.filter((input): input is CreateClaimInput & { loss_lat: number; loss_lng: number } =>
    !(input instanceof DomainError) && input.loss_lat !== undefined && input.loss_lng !== undefined);
  if (located.length === 0 || located.length < inputs.length) return undefined;
  const rows = located.map((input) => newClaimRow(caller, input, { lat: input.loss_lat, lng: input.loss_lng }));
  try {
    const [inserted, [job]] = await inOneWrite(caller, (tx) => [
      plainInsertClaims(tx, [...rows].sort(byExternalId)),
      jobInsert(tx, 'source_new_requests', { request_ids: rows.map((row) => row.id) }),
      statusAnnouncement(tx, announcementsOf(rows)),
    ]);
    const byId = new Map(inserted.map((row) => [row.id, row]));
    return { outcomes: rows.map((row): CreateOutcome => ({ ok: true, row: byId.get(row.id)!, idempotent: false })), job: job.id };
  } catch (error) {
    if (answeredByDatabase(error)) return undefined;
    throw error;
  }
}

/**
 * Creates a request per valid input (an DomainError input is a validation failure passed through, so
 * batch results keep their positions). A repeated external_id gives the existing request with
 * idempotent: true and queues nothing. New requests are announced (request.status_changed from
 * null) at housing_needs_collected, and one sourcing job for them all starts after the commit.
 * `bulk` (POST /claims/batch): before that job starts, app.claims is analyzed if it doubled, so that
 * the sourcing rounds' foreign-key check is planned on the table's size (see analyzeGrown): planned
 * on a table without statistics it read the organisation's requests for every round.
 */
export async function createClaims(caller: Caller, inputs: (CreateClaimInput | DomainError)[], { bulk = false } = {}): Promise<CreateOutcome[]> {
  const { outcomes, job } = (await createInOneWrite(caller, inputs)) ?? (await createInTransaction(caller, inputs));
  if (job && bulk) await analyzeAfterBulkLoad(['claims']);
  if (job) runAfterCommit({ source_new_requests: sourceNewRequests }, [job]);
  return outcomes;
}

/** The general creation: ZIP centroids, repeated external_ids, refused values each answered per item. */
async function createInTransaction(caller: Caller, inputs: (CreateClaimInput | DomainError)[]) {
  return withTenant(caller, async (tx) => {
    const located = await origins(tx, inputs);
    const rows = inputs.map((input, i) => {
      const origin = located[i];
      return input instanceof DomainError || origin instanceof DomainError ? undefined : newClaimRow(caller, input, origin);
    });
    const fresh = rows.filter((r): r is NewClaimRow => r !== undefined);
    const inserted = fresh.length ? await insertIsolated(tx, fresh) : new Map<NewClaimRow, CreatedRow | DomainError>();

    const created = [...inserted.values()].filter((r): r is CreatedRow => !(r instanceof DomainError));
    // The sourcing job goes first, in the same write as the event: ahead of the event's savepoint,
    // so that an event that cannot be recorded never takes the job with it.
    const [job] = await Promise.all([
      created.length ? enqueue(tx, 'source_new_requests', { request_ids: created.map((r) => r.id) }) : undefined,
      announceStatus(tx, announcementsOf(created)),
    ]);

    // A row not inserted met an external_id that exists (possibly made by an earlier item of the
    // same batch): the answer is that request as it stands.
    const repeated = fresh.filter((r) => !inserted.has(r)).map((r) => r.external_id!);
    const earlier = repeated.length ? await claimsByExternalId(tx, repeated) : [];
    const earlierByExternalId = new Map(earlier.map((r) => [r.external_id, r]));

    const outcomes = inputs.map((input, i): CreateOutcome => {
      if (input instanceof DomainError) return { ok: false, error: input };
      const origin = located[i];
      if (origin instanceof DomainError) return { ok: false, error: origin };
      const result = inserted.get(rows[i]!);
      if (result instanceof DomainError) return { ok: false, error: result };
      if (result) return { ok: true, row: result, idempotent: false };
      const existing = earlierByExternalId.get(input.external_id!);
      return existing ? { ok: true, row: existing, idempotent: true } : { ok: false, error: couldNotCreate() };
    });
    return { outcomes, job };
  });
}
