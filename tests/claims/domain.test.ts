// Pure domain modules of housing requests: references, scoring, document types, and the storage and
// crawl adapters against stand-in transports.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claimRefPattern, newClaimRef } from '../../shared/claims/values.ts';
import { acceptsPets, fits, normaliseFeature, rank, score, weights, type Candidate, type Needs, type ScorePart } from '../../shared/claims/scoring.ts';
import { detectDocumentType } from '../../shared/claims/documents.ts';
import { documentStorage, localFolderStorage, requireSupabaseDocumentStorage, supabaseStorage } from '../../shared/claims/storage.ts';
import { liveCrawler, recordingCrawler, type CrawlRequest } from '../../shared/claims/crawl.ts';

describe('claim_ref', () => {
  it('is REQ- and six unambiguous upper-case characters, drawn afresh each time', () => {
    const refs = Array.from({ length: 2000 }, newClaimRef);
    for (const ref of refs) {
      expect(ref).toMatch(claimRefPattern);
      expect(ref.slice(4)).not.toMatch(/[01OIL]/);
    }
    expect(new Set(refs).size).toBeGreaterThan(1990);
  });
});

const needs: Needs = {
  bedrooms: 2, bathrooms: 1.5, sqft: 1000, furnishing: 'furnished', hasPets: false, accessibilityNeeds: [], amenities: [],
  maxBudgetCents: 300000, searchRadiusMiles: 20,
};
const home: Candidate = {
  distanceMiles: 0, bedrooms: 2, bathrooms: 1.5, sqft: 1000, furnishedStatus: 'furnished', petPolicy: 'Pets welcome',
  amenities: ['wifi'], monthlyRateCents: 250000,
};

describe('match score', () => {
  it('weights sum to 100 and a perfect home at the loss scores 100', () => {
    expect(Object.values(weights).reduce((a, b) => a + b, 0)).toBe(100);
    expect(score(needs, home).score).toBe(100);
  });

  it('falls linearly with distance to 0 at the edge of the radius', () => {
    expect(fits(needs, { ...home, distanceMiles: 5 }).distance).toBe(0.75);
    expect(fits(needs, { ...home, distanceMiles: 20 }).distance).toBe(0);
  });

  it('scores bedrooms: too few 0, each spare one a quarter less down to a half', () => {
    expect(fits(needs, { ...home, bedrooms: 1 }).bedrooms).toBe(0);
    expect(fits(needs, { ...home, bedrooms: 3 }).bedrooms).toBe(0.75);
    expect(fits(needs, { ...home, bedrooms: 6 }).bedrooms).toBe(0.5);
  });

  it('scores bathrooms, size, furnishing and budget', () => {
    expect(fits(needs, { ...home, bathrooms: 1 }).bathrooms).toBe(0.5);
    expect(fits(needs, { ...home, sqft: 750 }).size).toBe(0.5);
    expect(fits(needs, { ...home, sqft: null }).size).toBe(0.5);
    expect(fits(needs, { ...home, sqft: 400 }).size).toBe(0);
    expect(fits(needs, { ...home, furnishedStatus: 'partial' }).furnishing).toBe(0.5);
    expect(fits(needs, { ...home, furnishedStatus: 'unfurnished' }).furnishing).toBe(0);
    expect(fits({ ...needs, furnishing: 'any' }, { ...home, furnishedStatus: 'unfurnished' }).furnishing).toBe(1);
    expect(fits(needs, { ...home, monthlyRateCents: 330000 }).budget).toBeCloseTo(0.8);
    expect(fits(needs, { ...home, monthlyRateCents: 450000 }).budget).toBe(0);
    expect(fits({ ...needs, maxBudgetCents: null }, { ...home, monthlyRateCents: 900000 }).budget).toBe(1);
  });

  it('scores pets from the policy text, and features loosely by name', () => {
    const withPets = { ...needs, hasPets: true };
    expect(fits(withPets, { ...home, petPolicy: 'No pets, sorry' }).pets).toBe(0);
    expect(fits(withPets, { ...home, petPolicy: 'Pets are not permitted' }).pets).toBe(0);
    expect(fits(withPets, { ...home, petPolicy: 'Small dogs OK' }).pets).toBe(1);
    expect(fits(withPets, { ...home, petPolicy: null }).pets).toBe(0.5);
    expect(fits(needs, { ...home, petPolicy: 'No pets' }).pets).toBe(1);
    expect(acceptsPets('pet-free building')).toBe(false);
    const access = { ...needs, accessibilityNeeds: ['Wheelchair accessible', 'elevator'] };
    expect(fits(access, { ...home, amenities: ['wheelchair_accessible'] }).accessibility).toBe(0.5);
    expect(fits(access, { ...home, amenities: null }).accessibility).toBe(0);
  });

  // The scoring as it was before matching was made faster: the reference the fast paths are held to
  // (features normalised on every comparison, both sums and roundings as first written).
  const featureFitAsWritten = (wanted: readonly string[], offered: readonly string[] | null) => {
    if (wanted.length === 0) return 1;
    const have = new Set((offered ?? []).map(normaliseFeature));
    return wanted.filter((w) => have.has(normaliseFeature(w))).length / wanted.length;
  };
  const reference = (n: Needs, h: Candidate) => {
    const fit = { ...fits(n, h), accessibility: featureFitAsWritten(n.accessibilityNeeds, h.amenities), amenities: featureFitAsWritten(n.amenities, h.amenities) };
    const parts = Object.fromEntries(
      (Object.keys(weights) as ScorePart[]).map((part) => [part, Math.round(weights[part] * fit[part] * 10) / 10]),
    );
    const total = (Object.keys(weights) as ScorePart[]).reduce((sum, part) => sum + weights[part] * fit[part], 0);
    return { score: Math.round(total * 10) / 10, parts };
  };
  const features = fc.array(fc.constantFrom('wifi', 'Wheelchair accessible', 'wheelchair_accessible', 'parking', 'Washer dryer', ' Parking '), { maxLength: 4 });
  const needsOf = fc.record({
    bedrooms: fc.integer({ min: 0, max: 6 }), bathrooms: fc.integer({ min: 0, max: 8 }).map((h) => h / 2), sqft: fc.integer({ min: 200, max: 5000 }),
    furnishing: fc.constantFrom('furnished', 'partial', 'unfurnished', 'any'), hasPets: fc.boolean(), accessibilityNeeds: features,
    amenities: features, maxBudgetCents: fc.option(fc.integer({ min: 50_000, max: 1_000_000 })), searchRadiusMiles: fc.integer({ min: 1, max: 100 }),
  });
  const homeOf = fc.record({
    distanceMiles: fc.double({ min: 0, max: 120, noNaN: true }), bedrooms: fc.integer({ min: 0, max: 8 }), bathrooms: fc.integer({ min: 0, max: 10 }).map((h) => h / 2),
    sqft: fc.option(fc.integer({ min: 100, max: 8000 })), furnishedStatus: fc.option(fc.constantFrom('furnished', 'partial', 'unfurnished')),
    petPolicy: fc.option(fc.constantFrom('No pets', 'Pets welcome', 'Cats only', '')), amenities: fc.option(features),
    monthlyRateCents: fc.integer({ min: 10_000, max: 2_000_000 }),
  });

  it('gives, for any household and home, the points and total of the formula as first written (one loop now)', () => {
    fc.assert(fc.property(needsOf, homeOf, (n, h) => {
      expect(score(n, h)).toEqual(reference(n, h));
    }), { numRuns: 5000, seed: 28 });
  });

  it('ranks any homes as scoring each by the formula as first written and sorting them all would, the first `limit` with their parts', () => {
    const homesOf = fc.array(homeOf, { maxLength: 40 }).map((homes) => homes.map((h, i) => ({ ...h, id: `home-${String(i).padStart(2, '0')}` })));
    fc.assert(fc.property(needsOf, homesOf, fc.integer({ min: 0, max: 45 }), (n, homes, limit) => {
      const expected = homes
        .map((h) => ({ home: h, ...reference(n, h) }))
        .sort((a, b) => b.score - a.score || a.home.distanceMiles - b.home.distanceMiles || (a.home.id < b.home.id ? -1 : 1))
        .slice(0, limit);
      expect(rank(n, homes, limit)).toEqual(expected);
    }), { numRuns: 500, seed: 28 });
  });

  it('ranks by score, then distance, then id', () => {
    const ranked = rank(needs, [
      { ...home, id: 'b', distanceMiles: 2 },
      { ...home, id: 'a', distanceMiles: 2 },
      { ...home, id: 'c', distanceMiles: 1, bedrooms: 1 },
      { ...home, id: 'd', distanceMiles: 1 },
    ]);
    expect(ranked.map((r) => r.home.id)).toEqual(['d', 'a', 'b', 'c']);
  });
});

describe('document types (by content)', () => {
  const bytes = (...parts: (string | number[])[]) =>
    Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? [...p].map((c) => c.charCodeAt(0)) : p)));
  it.each([
    ['PDF', bytes('%PDF-1.4 ...'), 'application/pdf'],
    ['PNG', bytes([0x89], 'PNG', [0x0d, 0x0a, 0x1a, 0x0a, 0]), 'image/png'],
    ['JPEG', bytes([0xff, 0xd8, 0xff, 0xe0]), 'image/jpeg'],
    ['GIF', bytes('GIF89a...'), 'image/gif'],
    ['WebP', bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8 '), 'image/webp'],
    ['TIFF', bytes([0x49, 0x49, 0x2a, 0x00, 8]), 'image/tiff'],
    ['HEIC', bytes([0, 0, 0, 24], 'ftypheic', [0, 0]), 'image/heic'],
    ['Word 97', bytes([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], [0, 0], 'W\0o\0r\0d\0D\0o\0c\0u\0m\0e\0n\0t\0'), 'application/msword'],
    ['Word 2007', bytes('PK', [3, 4], '....word/document.xml'), 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  ])('recognises %s', (_name, content, type) => {
    expect(detectDocumentType(content)?.contentType).toBe(type);
  });

  it.each([
    ['an Excel workbook (OLE without a Word stream)', bytes([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], 'Workbook')],
    ['a ZIP that is not a Word document', bytes('PK', [3, 4], 'xl/workbook.xml')],
    ['an executable', bytes('MZ', [0x90, 0])],
    ['HTML', bytes('<html><body>%PDF-</body></html>')],
    ['a truncated PNG signature', bytes([0x89], 'PN')],
  ])('refuses %s', (_name, content) => {
    expect(detectDocumentType(content)).toBeUndefined();
  });
});

describe('document storage', () => {
  it('keeps files in a local folder, and answers undefined for a key never stored', async () => {
    const root = await mkdtemp(join(tmpdir(), 'hps-storage-'));
    try {
      const storage = localFolderStorage(root);
      await storage.put('org/live/req/doc', Uint8Array.from([1, 2, 3]), 'application/pdf');
      expect(new Uint8Array(await readFile(join(root, 'org/live/req/doc')))).toEqual(Uint8Array.from([1, 2, 3]));
      expect(await storage.get('org/live/req/doc')).toEqual(Uint8Array.from([1, 2, 3]));
      expect(await storage.get('org/live/req/missing')).toBeUndefined();
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('talks to Supabase Storage through supabase-js, creating the private bucket on first upload', async () => {
    const calls: { method: string; path: string; body?: string; authorization: string | null }[] = [];
    let bucketExists = false;
    const fakeFetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      const path = new URL(request.url).pathname;
      const body = request.method === 'GET' ? undefined : await request.text();
      calls.push({ method: request.method, path, body, authorization: request.headers.get('authorization') });
      const json = (status: number, value: unknown) => new Response(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });
      if (path === '/storage/v1/bucket') {
        bucketExists = true;
        return json(200, { name: 'claim-documents' });
      }
      if (path.startsWith('/storage/v1/object/claim-documents/') && request.method === 'POST') {
        return bucketExists ? json(200, { Key: 'claim-documents/k', Id: 'x' }) : json(400, { statusCode: '404', error: 'Bucket not found', message: 'Bucket not found' });
      }
      if (path === '/storage/v1/object/claim-documents/org/doc') return new Response(Uint8Array.from([7, 8]), { status: 200 });
      return json(400, { statusCode: '404', error: 'not_found', message: 'Object not found' });
    }) as typeof fetch;
    const storage = supabaseStorage({ url: 'https://project.supabase.test', serviceRoleKey: 'service-role', bucket: 'claim-documents', fetch: fakeFetch });

    await storage.put('org/doc', Uint8Array.from([7, 8]), 'application/pdf');
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /storage/v1/object/claim-documents/org/doc',
      'POST /storage/v1/bucket',
      'POST /storage/v1/object/claim-documents/org/doc',
    ]);
    expect(JSON.parse(calls[1].body!)).toMatchObject({ name: 'claim-documents', public: false });
    expect(calls[0].authorization).toBe('Bearer service-role');
    expect(await storage.get('org/doc')).toEqual(Uint8Array.from([7, 8]));
    expect(await storage.get('org/other')).toBeUndefined();
  });

  it('is chosen by DOCUMENT_STORAGE, else by the presence of the Supabase settings', () => {
    const saved = { ...process.env };
    try {
      delete process.env.DOCUMENT_STORAGE;
      delete process.env.SUPABASE_URL;
      delete process.env.SUPABASE_SERVICE_ROLE_KEY;
      expect(documentStorage().kind).toBe('local');
      process.env.SUPABASE_URL = 'https://project.supabase.test';
      process.env.SUPABASE_SERVICE_ROLE_KEY = 'service-role';
      expect(documentStorage().kind).toBe('supabase');
      process.env.DOCUMENT_STORAGE = 'local';
      expect(documentStorage().kind).toBe('local');
      process.env.DOCUMENT_STORAGE = 'ftp';
      expect(() => documentStorage()).toThrow(/local or supabase/);
    } finally {
      process.env = saved;
    }
  });

  it('is Supabase Storage on the Edge Runtime, and a missing setting is named at start-up', () => {
    const saved = { ...process.env };
    try {
      delete process.env.DOCUMENT_STORAGE;
      delete process.env.SUPABASE_URL;
      process.env.SUPABASE_SERVICE_ROLE_KEY = 'service-role';
      expect(() => requireSupabaseDocumentStorage()).toThrow(/needs SUPABASE_URL \(/);
      process.env.SUPABASE_URL = 'https://project.supabase.test';
      delete process.env.SUPABASE_SERVICE_ROLE_KEY;
      expect(() => requireSupabaseDocumentStorage()).toThrow(/needs SUPABASE_SERVICE_ROLE_KEY \(/);
      process.env.SUPABASE_SERVICE_ROLE_KEY = 'service-role';
      expect(() => requireSupabaseDocumentStorage()).not.toThrow();
      expect(documentStorage().kind).toBe('supabase');
      process.env.DOCUMENT_STORAGE = 'local';
      expect(() => requireSupabaseDocumentStorage()).toThrow(/^DOCUMENT_STORAGE=local is not available on the Edge Runtime/);
    } finally {
      process.env = saved;
    }
  });
});

describe('crawl port', () => {
  const crawl: CrawlRequest = {
    request_id: 'r', reference: 'REQ-AAAAAA', postcode: '78701', city: 'Austin', state: 'TX', country: 'US', latitude: 30.27,
    longitude: -97.74, radius_miles: 25, bedrooms: 2, target_move_in: '2027-01-01',
  };

  it('records in sandbox without contacting anyone', async () => {
    expect(await recordingCrawler.request(crawl)).toEqual({ status: 'recorded' });
  });

  it('is not_configured without a URL, and reports a time-out as failed', async () => {
    expect(await liveCrawler({ timeoutMs: 100 }).request(crawl)).toEqual({ status: 'not_configured', detail: expect.any(String) });
    const hanging = ((_url: RequestInfo | URL, init?: RequestInit) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason)))) as typeof fetch;
    const outcome = await liveCrawler({ url: 'https://crawler.test/crawl', timeoutMs: 20, fetch: hanging }).request(crawl);
    expect(outcome.status).toBe('failed');
  });
});
