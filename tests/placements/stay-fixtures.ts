// A stay driven through the sandbox as a carrier would, shared by the ledger's HTTP tests: each
// step checks its own answer, so a test reads as the stay's story.
import { expect } from 'vitest';
import { drainJobs, type Api, type scene } from './fixtures.ts';

export type Scene = Awaited<ReturnType<typeof scene>>;
export interface Stay { ref: string; home: string }

export const day = (from: string, days: number) => new Date(Date.parse(`${from}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
export const cents = (amount: number) => Math.round(amount * 100);

/** Awaits a call, checks its status, answers its body. */
export async function ok(res: Promise<{ status: number; text: string; body: any }>, status = 200) {
  const done = await res;
  expect(done.status, done.text).toBe(status);
  return done.body;
}

export async function signBoth(api: Api, stay: Stay) {
  for (const who of ['household', 'landlord']) await ok(api.post(`/sandbox/claims/${stay.ref}/homes/${stay.home}/${who}`, { action: 'sign' }));
}

/** Pays everything due now, charge after charge. */
export async function payDue(api: Api, stay: Stay) {
  for (;;) {
    const res = await api.post(`/sandbox/claims/${stay.ref}/homes/${stay.home}/payment`, { outcome: 'succeeded' });
    if (res.status === 409 && res.body.error?.code === 'nothing_due') return;
    expect(res.status, res.text).toBe(200);
  }
}

export const statement = async (api: Api, stay: Stay) => (await ok(api.get(`/claims/${stay.ref}/statement?property_id=${stay.home}`))).data;

/** Asks a refund (the defaults unless told), has the landlord approve it, and issues it. */
export async function refund(s: Scene, stay: Stay, body: Record<string, unknown> = {}) {
  const asked = await ok(s.api.post(`/claims/${stay.ref}/refund-request`, { property_id: stay.home, ...body }), 202);
  await ok(s.api.post(`/sandbox/claims/${stay.ref}/homes/${stay.home}/landlord`, { action: 'approve_refund' }));
  await drainJobs(s.c.orgId);
  return asked.data;
}
