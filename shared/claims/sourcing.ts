import type { Tx } from '../db/client.ts';
import { inOneWrite, withTenant, type Tenant, type Caller } from '../db/tenant.ts';
import { moveStatus } from './lifecycle.ts';
import { crawlerFor, type Crawler, type CrawlRequest, type CrawlStatus } from './crawl.ts';
import { rank, type Candidate, type Needs } from './scoring.ts';
import type { ServiceJob } from '../jobs/runner.ts';
import type { JobRow } from '../jobs/queue.ts';
import { conflict } from '../domain-errors.ts';
import type { z } from '@hono/zod-openapi';
import { claimByReference, findClaim, foundClaim, lockClaims, type ClaimRow } from './repository.ts';
import type { SourcingRound } from './schemas.ts';
import {
  candidatesByReference, homeShown, insertSourcingRounds, openingRoundsOf, recordCrawlOutcomes, type CandidateRow, type RoundRow,
} from './sourcing-repository.ts';
import { errorFields, log } from '../log.ts';
import { fromCents } from '../money.ts';

// Sourcing: matching homes to a request (app.match_candidates finds the eligible homes nearest
// first; shared/claims/scoring.ts ranks them) and sourcing rounds (matching again plus a crawl
// request in the loss postcode). A new request's first round is a durable job, queued with the
// request and started right after its commit (see create.ts). The SQL is in sourcing-repository.ts.

function needsOf(claim: ClaimRow): Needs {
  return {
    bedrooms: claim.bedrooms,
    bathrooms: Number(claim.bathrooms),
    sqft: claim.sqft,
    furnishing: claim.furnishing,
    hasPets: claim.has_pets,
    accessibilityNeeds: claim.accessibility_needs,
    amenities: claim.amenities,
    maxBudgetCents: claim.max_budget_cents,
    searchRadiusMiles: claim.search_radius_miles,
  };
}

/** The request's matches, best first: its eligible homes ranked by its current needs. */
function rankMatches(claim: ClaimRow, rows: readonly CandidateRow[], limit: number) {
  const candidates = rows.map((row): Candidate & { id: string; row: CandidateRow } => ({
    id: row.property_id,
    row,
    distanceMiles: row.distance_miles,
    bedrooms: row.bedrooms,
    bathrooms: Number(row.bathrooms),
    sqft: row.sqft,
    furnishedStatus: row.furnished_status,
    petPolicy: row.pet_policy,
    amenities: row.amenities,
    monthlyRateCents: row.monthly_rate_cents,
  }));
  return rank(needsOf(claim), candidates, limit).map(({ home: { row }, score, parts }) => {
    const { name, city, state, zip_code, currency } = homeShown(row);
    return {
      property_id: row.property_id,
      name,
      city,
      state,
      zip_code,
      monthly_rate: fromCents(row.monthly_rate_cents),
      currency,
      distance_miles: Math.round(row.distance_miles * 10) / 10,
      score,
      score_parts: parts,
    };
  });
}

/**
 * GET matches: the request's matches now, read with the request in one read-only transaction sent
 * in one write. A request still at housing_needs_collected that has some moves on, in a write of its
 * own (guarded, so two reads racing move it once); for every other request the read writes nothing.
 */
export async function matchesNow(caller: Caller, reference: string, limit: number) {
  const [claims, candidates] = await inOneWrite(caller, (tx) => [claimByReference(tx, reference), candidatesByReference(tx, reference)]);
  const claim = foundClaim(claims);
  const found = rankMatches(claim, candidates, limit);
  if (found.length && claim.status_primary === 'housing_needs_collected') {
    await withTenant({ ...caller, readsOnly: false }, (tx) => homesFound(tx, [claim.id]));
  }
  return found;
}

/** Matching found homes: requests still at housing_needs_collected move to housing_options_found. */
export const homesFound = (tx: Tx, requestIds: string[]) =>
  moveStatus(tx, requestIds, 'housing_options_found', ['housing_needs_collected']);

function crawlRequestOf(claim: ClaimRow): CrawlRequest {
  return {
    request_id: claim.id,
    reference: claim.claim_ref,
    postcode: claim.loss_zip,
    city: claim.loss_city,
    state: claim.loss_state,
    country: claim.loss_country,
    latitude: claim.origin_lat,
    longitude: claim.origin_lng,
    radius_miles: claim.search_radius_miles,
    bedrooms: claim.bedrooms,
    target_move_in: claim.target_move_in,
  };
}

/**
 * Records one sourcing round per request, in one statement: matching runs again (requests with homes
 * move on) and the crawl request is kept with the round, to be sent by sendCrawls after commit, or
 * with its outcome when the crawler contacts nobody (sandbox; live with no crawler configured).
 */
async function recordSourcingRounds(tx: Tx, claims: ClaimRow[], trigger: 'opened' | 'source_more', crawler: Crawler): Promise<RoundRow[]> {
  if (claims.length === 0) return [];
  const input = claims.map((claim) => ({ claim_id: claim.id, crawl: crawlRequestOf(claim) }));
  const rounds = await insertSourcingRounds(tx, input, trigger, crawler.settled);
  await homesFound(tx, rounds.filter((r) => r.matches_found > 0).map((r) => r.claim_id));
  return rounds;
}

/**
 * After the rounds are committed: sends each pending crawl request through the crawler and records
 * the outcomes (one statement). Neither a crawler failure nor a failure to record its outcome fails
 * the call: the requests and rounds are committed already, and a 500 would invite a retry that opens
 * a second request. The round keeps `failed` and its detail, or stays `pending`, for the coordinator.
 */
async function sendCrawls(caller: Tenant, crawler: Crawler, rounds: RoundRow[]): Promise<(RoundRow & { crawl_status: CrawlStatus })[]> {
  const pending = rounds.filter((round) => round.crawl_status === 'pending');
  const outcomes = await Promise.all(pending.map((round) => crawler.request(round.crawl_request)));
  if (pending.length > 0) {
    try {
      await withTenant(caller, (tx) => recordCrawlOutcomes(tx, pending.map((r) => r.id), outcomes));
    } catch (error) {
      log.error('crawl outcome not recorded', { rounds: pending.map((r) => r.id), ...errorFields(error) });
    }
  }
  const sent = new Map(pending.map((round, i) => [round.id, outcomes[i].status]));
  return rounds.map((round) => ({ ...round, crawl_status: sent.get(round.id) ?? (round.crawl_status as CrawlStatus) }));
}

/** POST source-more: a round for a request that has a coordinator, its crawl sent after the commit. */
export async function sourceMore(caller: Caller, reference: string): Promise<z.infer<typeof SourcingRound>> {
  const crawler = crawlerFor(caller.environment);
  const { claim, rounds } = await withTenant(caller, async (tx) => {
    const claim = await findClaim(tx, reference, { lock: true });
    if (!claim.coordinator) {
      throw conflict(
        'no_coordinator',
        'Nobody at the service is assigned to source for this request yet. Ask your account manager to assign a coordinator, then retry.',
      );
    }
    return { claim, rounds: await recordSourcingRounds(tx, [claim], 'source_more', crawler) };
  });
  const [round] = await sendCrawls(caller, crawler, rounds);
  return {
    id: round.id,
    request_id: claim.id,
    reference: claim.claim_ref,
    coordinator: round.coordinator_email ?? claim.coordinator!,
    matches_found: round.matches_found,
    crawl: { postcode: round.crawl_postcode, status: round.crawl_status },
    created_at: round.created_at.toISOString(),
  };
}

/**
 * The opening round of each request that has none yet, recorded now; plus the opening rounds recorded
 * by an earlier run whose crawl was never sent (that run died between its commit and the crawl).
 * The requests are locked first, in id order (as status moves lock them), so two runs at once
 * serialise here and the second finds the first's rounds; the unique index on opening rounds backs it.
 */
async function openingRounds(tx: Tx, requestIds: string[], crawler: Crawler): Promise<RoundRow[]> {
  // Sent together: the rounds are read after the locks are held (statements run in order).
  const [claims, earlier] = await Promise.all([lockClaims(tx, requestIds), openingRoundsOf(tx, requestIds)]);
  const sourced = new Set(earlier.map((round) => round.claim_id));
  const fresh = await recordSourcingRounds(tx, claims.filter((claim) => !sourced.has(claim.id)), 'opened', crawler);
  return [...fresh, ...earlier.filter((round) => round.crawl_status === 'pending')];
}

/** The opening rounds of requests of one tenant (set-based), then their crawls; what each found. */
async function sourceRequests(tenant: Tenant, requestIds: string[]) {
  const crawler = crawlerFor(tenant.environment);
  const rounds = await withTenant(tenant, (tx) => openingRounds(tx, requestIds, crawler));
  const crawled = await sendCrawls(tenant, crawler, rounds);
  return crawled.map((round) => ({ request_id: round.claim_id, matches_found: round.matches_found, crawl: round.crawl_status }));
}

const tenantOf = (job: JobRow): Tenant => ({ orgId: job.org_id, environment: job.environment });

/**
 * source_new_requests: the first sourcing round of requests just created (one job per creation call,
 * a batch's requests together): matching, the move to housing_options_found with its
 * request.status_changed where homes match, then the crawl requests. Jobs claimed together (the
 * creations of a busy moment) are sourced in one transaction per tenant. Safe to run twice.
 */
export const sourceNewRequests: ServiceJob<'source_new_requests'> = {
  kind: 'source_new_requests',
  async run({ request_ids }, { job }) {
    return { rounds: await sourceRequests(tenantOf(job), request_ids) };
  },
  async runMany(jobs) {
    const byTenant = new Map<string, typeof jobs>();
    for (const job of jobs) {
      const tenant = `${job.org_id} ${job.environment}`;
      byTenant.set(tenant, [...(byTenant.get(tenant) ?? []), job]);
    }
    const found = new Map<string, Awaited<ReturnType<typeof sourceRequests>>[number]>();
    await Promise.all([...byTenant.values()].map(async (group) => {
      const rounds = await sourceRequests(tenantOf(group[0]), group.flatMap((job) => job.payload.request_ids));
      for (const round of rounds) found.set(round.request_id, round);
    }));
    return jobs.map((job) => ({ rounds: job.payload.request_ids.flatMap((id) => found.get(id) ?? []) }));
  },
};
