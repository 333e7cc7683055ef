// Ranking of matched homes: a score from 0 to 100, the sum of weighted fits, each between 0 and 1.
// Pure: the database finds the eligible homes (shared rules in app.eligible_homes), this decides
// their order. docs/claims.md documents the same table.

export const weights = {
  distance: 25,
  bedrooms: 15,
  bathrooms: 10,
  size: 5,
  furnishing: 10,
  pets: 10,
  accessibility: 10,
  amenities: 5,
  budget: 10,
} as const;

export type ScorePart = keyof typeof weights;

/** What the household needs, as stored on the request. */
export interface Needs {
  bedrooms: number;
  bathrooms: number;
  sqft: number;
  furnishing: string;
  hasPets: boolean;
  accessibilityNeeds: readonly string[];
  amenities: readonly string[];
  maxBudgetCents: number | null;
  searchRadiusMiles: number;
}

/** What matching knows of a candidate home. */
export interface Candidate {
  distanceMiles: number;
  bedrooms: number;
  bathrooms: number;
  sqft: number | null;
  furnishedStatus: string | null;
  petPolicy: string | null;
  amenities: readonly string[] | null;
  monthlyRateCents: number;
}

const clamp = (value: number) => Math.min(1, Math.max(0, value));

/** Amenity and need names compared loosely: "Wheelchair accessible" meets "wheelchair_accessible". */
export const normaliseFeature = (value: string) => value.trim().toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '');

const noPets = /\b(no|without)\s+(pets?|animals?|dogs?\s+or\s+cats?)\b|\b(pets?|animals?)\s+(are\s+|is\s+)?not\s+(allowed|permitted|accepted)\b|\bpet[-\s]?free\b/i;

/** Whether a home's pet policy (free text, an explicit statement when there are no pets) accepts pets. */
export function acceptsPets(policy: string | null): boolean | undefined {
  if (!policy || !policy.trim()) return undefined;
  return !noPets.test(policy);
}

/**
 * A household's wanted features, normalised once for all the homes scored against them, and the
 * homes' feature names, normalised once each per ranking (the same few names recur from home to home).
 */
interface Features {
  accessibility: readonly string[];
  amenities: readonly string[];
  normalised: (offered: string) => string;
}

function featuresOf(needs: Needs): Features {
  const seen = new Map<string, string>();
  return {
    accessibility: needs.accessibilityNeeds.map(normaliseFeature),
    amenities: needs.amenities.map(normaliseFeature),
    normalised: (offered) => {
      let name = seen.get(offered);
      if (name === undefined) seen.set(offered, (name = normaliseFeature(offered)));
      return name;
    },
  };
}

const noFeatures: ReadonlySet<string> = new Set();

/** The home's features, normalised; none read when the household wants none. */
function offeredBy(home: Candidate, features: Features): ReadonlySet<string> {
  if (features.accessibility.length === 0 && features.amenities.length === 0) return noFeatures;
  return new Set((home.amenities ?? []).map(features.normalised));
}

/** Share of the wanted features (normalised) the home offers; 1 when nothing is wanted. */
function featureFit(wanted: readonly string[], have: ReadonlySet<string>): number {
  if (wanted.length === 0) return 1;
  let met = 0;
  for (const name of wanted) if (have.has(name)) met++;
  return met / wanted.length;
}

function furnishingFit(wanted: string, offered: string | null): number {
  if (wanted === 'any') return 1;
  if (!offered) return 0.5;
  if (wanted === offered) return 1;
  // "partial" is half-way between furnished and unfurnished.
  return wanted === 'partial' || offered === 'partial' ? 0.5 : 0;
}

/** Each part's fit between 0 and 1. */
export function fits(needs: Needs, home: Candidate): Record<ScorePart, number> {
  return fitsWith(needs, featuresOf(needs), home);
}

function fitsWith(needs: Needs, features: Features, home: Candidate): Record<ScorePart, number> {
  const extraBedrooms = home.bedrooms - needs.bedrooms;
  const offered = offeredBy(home, features);
  const pets = needs.hasPets ? acceptsPets(home.petPolicy) : true;
  const over = needs.maxBudgetCents === null ? 0 : (home.monthlyRateCents - needs.maxBudgetCents) / needs.maxBudgetCents;
  return {
    // Linear from the origin (1) to the edge of the search radius (0).
    distance: clamp(1 - home.distanceMiles / needs.searchRadiusMiles),
    // Too few bedrooms do not fit; each spare one costs a quarter, down to a half.
    bedrooms: extraBedrooms < 0 ? 0 : Math.max(0.5, 1 - 0.25 * extraBedrooms),
    // Each missing bathroom costs the whole part (a missing half bath, half of it).
    bathrooms: clamp(1 - Math.max(0, needs.bathrooms - home.bathrooms)),
    // Full at the wanted size or above, falling to 0 at half of it; unknown size counts half.
    size: home.sqft === null ? 0.5 : clamp((home.sqft / needs.sqft - 0.5) / 0.5),
    furnishing: furnishingFit(needs.furnishing, home.furnishedStatus),
    // A household with pets: a no-pets home does not fit; an unstated policy counts half.
    pets: pets === undefined ? 0.5 : pets ? 1 : 0,
    accessibility: featureFit(features.accessibility, offered),
    amenities: featureFit(features.amenities, offered),
    // Within budget (or no budget) fits; above it, falling to 0 at 50 % over.
    budget: over <= 0 ? 1 : clamp(1 - 2 * over),
  };
}

export interface Scored<T> {
  home: T;
  score: number;
  parts: Record<ScorePart, number>;
}

/** The parts in the order of the weights table: the order of score_parts and of the sum. */
const scoreParts = Object.keys(weights) as ScorePart[];

/** The total of the points (weight × fit, unrounded, summed in the parts' order), to one decimal. */
function totalOf(fit: Record<ScorePart, number>): number {
  let total = 0;
  for (const part of scoreParts) total += weights[part] * fit[part];
  return Math.round(total * 10) / 10;
}

/** Points per part, to one decimal each. */
function partsOf(fit: Record<ScorePart, number>): Record<ScorePart, number> {
  const parts = {} as Record<ScorePart, number>;
  for (const part of scoreParts) parts[part] = Math.round(weights[part] * fit[part] * 10) / 10;
  return parts;
}

/** Points per part (weight × fit, one decimal) and their total. */
export function score(needs: Needs, home: Candidate): { score: number; parts: Record<ScorePart, number> } {
  const fit = fits(needs, home);
  return { score: totalOf(fit), parts: partsOf(fit) };
}

/**
 * Best first: highest score, then nearest, then a stable order by id; the first `limit` of them
 * with their points per part. Matching ranks every candidate of a request on every call, so each
 * home's total is worked out alone, and the parts only for the homes returned.
 */
export function rank<T extends Candidate & { id: string }>(needs: Needs, homes: readonly T[], limit = homes.length): Scored<T>[] {
  const features = featuresOf(needs);
  return homes
    .map((home) => ({ home, score: totalOf(fitsWith(needs, features, home)) }))
    .sort((a, b) => b.score - a.score || a.home.distanceMiles - b.home.distanceMiles || (a.home.id < b.home.id ? -1 : 1))
    .slice(0, limit)
    .map(({ home, score }) => ({ home, score, parts: partsOf(fitsWith(needs, features, home)) }));
}
