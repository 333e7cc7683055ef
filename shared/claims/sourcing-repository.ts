import type { Tx } from '../db/client.ts';
import { referenceCondition } from './repository.ts';
import type { CrawlOutcome, CrawlRequest, CrawlStatus } from './crawl.ts';

// The sourcing SQL: the eligible homes of a request (app.eligible_homes: app.match_candidates ranks
// them nearest first, app.count_candidates counts them) and the sourcing rounds (app.sourcing_rounds)
// with their crawl requests and outcomes. Queries run inside withTenant or inOneWrite; row-level
// security limits them to the caller's organisation and environment.

/** How many eligible homes, nearest first, matching ranks and counts. */
export const candidatePool = 200;

/** What ranking reads of an eligible home, and how it is shown once ranked. */
export interface CandidateRow {
  property_id: string;
  monthly_rate_cents: number;
  bedrooms: number;
  bathrooms: string;
  sqft: number | null;
  furnished_status: string | null;
  amenities: string[] | null;
  pet_policy: string | null;
  distance_miles: number;
  /** JSON text of [name, city, state, zip_code, currency]: read only for the homes a call returns (see homeShown). */
  shown: string;
}

/** The fields of a matched home that ranking does not read, as matches show them. */
export interface HomeShown {
  name: string | null;
  city: string;
  state: string;
  zip_code: string;
  currency: string;
}

/** A candidate's shown fields, read from their JSON text. */
export function homeShown(row: CandidateRow): HomeShown {
  const [name, city, state, zip_code, currency] = JSON.parse(row.shown) as [string | null, string, string, string, string];
  return { name, city, state, zip_code, currency };
}

/**
 * The statement finding the eligible homes of the request a `{reference}` names (its current needs
 * and radius), at most candidatePool, nearest first; none for another tenant's request. It names
 * the request as claimByReference does, so both can travel in one write. The fields only a
 * returned home shows travel as one JSON text a row, read for those homes alone: five text columns
 * of two hundred homes cost the driver a fifth of a matches call.
 */
export const candidatesByReference = (tx: Tx, reference: string) => tx<CandidateRow[]>`
  select m.property_id, m.monthly_rate_cents, m.bedrooms, m.bathrooms, m.sqft, m.furnished_status, m.amenities,
         m.pet_policy, m.distance_miles, json_build_array(m.name, m.city, m.state, m.zip_code, m.currency)::text as shown
    from app.claims c cross join lateral app.match_candidates(c.id, ${candidatePool}) m
   where ${referenceCondition(tx, reference)}`;

/** Whether the request has at least one eligible home (counted, not ranked: app.count_candidates). */
export async function hasCandidate(tx: Tx, claimId: string): Promise<boolean> {
  const [{ found }] = await tx<{ found: boolean }[]>`select app.count_candidates(${claimId}, 1) > 0 as found`;
  return found;
}

export interface RoundRow {
  id: string;
  claim_id: string;
  coordinator_email: string | null;
  matches_found: number;
  crawl_postcode: string;
  crawl_request: CrawlRequest;
  crawl_status: CrawlStatus | 'pending';
  created_at: Date;
}

const roundColumns = (tx: Tx) => tx`id, claim_id, coordinator_email, matches_found, crawl_postcode, crawl_request, crawl_status, created_at`;

/**
 * One round per request, in one statement: each counts the request's eligible homes now (up to
 * candidatePool, without ranking them: app.count_candidates) and keeps its crawl request, pending
 * until the crawl is sent, or with the outcome already known when the crawler contacts nobody
 * (`settled`). The requests are read by primary key; a join to the input
 * rows instead is planned for a guessed hundred of them, as a scan of every request of the tenant.
 */
export function insertSourcingRounds(
  tx: Tx,
  rounds: { claim_id: string; crawl: CrawlRequest }[],
  trigger: 'opened' | 'source_more',
  settled: CrawlOutcome | undefined,
): Promise<RoundRow[]> {
  const crawls = Object.fromEntries(rounds.map((round) => [round.claim_id, round.crawl]));
  return tx<RoundRow[]>`
    insert into app.sourcing_rounds
      (org_id, environment, claim_id, trigger, coordinator_email, matches_found, crawl_postcode, crawl_request,
       crawl_status, crawl_detail)
    select c.org_id, c.environment, c.id, ${trigger}, app.coordinator_of(c),
           app.count_candidates(c.id, ${candidatePool}), c.loss_zip,
           ${tx.json(crawls as never)}::jsonb -> c.id::text, ${settled?.status ?? 'pending'}, ${settled?.detail ?? null}
      from app.claims c
     where c.id = any(${rounds.map((round) => round.claim_id)}::uuid[])
    returning ${roundColumns(tx)}`;
}

/** The opening rounds recorded for these requests. */
export function openingRoundsOf(tx: Tx, claimIds: string[]): Promise<RoundRow[]> {
  return tx<RoundRow[]>`
    select ${roundColumns(tx)} from app.sourcing_rounds where claim_id = any(${claimIds}::uuid[]) and trigger = 'opened'`;
}

/** Records each round's crawl outcome, in one statement. */
export async function recordCrawlOutcomes(tx: Tx, roundIds: string[], outcomes: CrawlOutcome[]): Promise<void> {
  await tx`
    update app.sourcing_rounds s set crawl_status = u.status, crawl_detail = u.detail
      from unnest(${roundIds}::uuid[], ${outcomes.map((o) => o.status)}::text[],
                  ${outcomes.map((o) => o.detail ?? null) as string[]}::text[]) as u(id, status, detail)
     where s.id = u.id`;
}
