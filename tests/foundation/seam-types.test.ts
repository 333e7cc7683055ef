import { describe, expect, it } from 'vitest';
import type { Tx } from '../../shared/db/client.ts';
import { emit } from '../../shared/events/outbox.ts';
import { payloadIssues } from '../../shared/events/registry.ts';
import { enqueue } from '../../shared/jobs/queue.ts';
import { jobRegistry } from '../../shared/job-registry.ts';
import type { JobKind } from '../../shared/jobs/kinds.ts';
import type { ServiceJobRegistry } from '../../shared/jobs/runner.ts';

// Checked by `npm run typecheck` (part of `npm test`): the job kinds and their payloads are one typed
// map, and events are emitted with the payload their registry definition describes. Each line
// marked @ts-expect-error is a mistake the compiler must refuse; were it accepted, the directive
// itself would fail the type check. The functions are never called (no transaction is opened).

const never = false;
declare const tx: Tx;

describe('the placement seams are typed', () => {
  it('refuses an unknown job kind, a wrong payload and a registry that misses or misfiles a kind', () => {
    if (never) {
      // @ts-expect-error 'send_emial' is not a job kind
      void enqueue(tx, 'send_emial', { to: [], subject: '', text: '', topic: '' });
      // @ts-expect-error send_contract takes a lease_id
      void enqueue(tx, 'send_contract', { lease: 'x' });
      void enqueue(tx, 'send_contract', { lease_id: 'x' });
      // @ts-expect-error advance_stay goes to in_stay or move_out_closeout only
      void enqueue(tx, 'advance_stay', { placement_id: 'p', to: 'booking_confirmed' });
      const { send_email, send_contract, withdraw_contract, issue_refund, advance_stay } = jobRegistry;
      // @ts-expect-error a registry without source_new_requests
      const short: ServiceJobRegistry = { send_email, send_contract, withdraw_contract, issue_refund, advance_stay };
      // @ts-expect-error send_email's handler filed under send_contract
      const misfiled: ServiceJobRegistry = { ...jobRegistry, send_contract: jobRegistry.send_email };
      void short; void misfiled;
    }
    const kinds: JobKind[] = [
      'send_contract', 'withdraw_contract', 'reread_contract', 'send_email', 'send_household_link', 'issue_refund', 'advance_stay', 'close_stay', 'source_new_requests',
      'fetch_calendar_import', 'post_signed_charges',
    ];
    expect(Object.keys(jobRegistry).sort()).toEqual([...kinds].sort());
    for (const [kind, definition] of Object.entries(jobRegistry)) expect(definition.kind).toBe(kind);
  });

  it('refuses an event payload that does not fit its definition', () => {
    if (never) {
      // @ts-expect-error option.saved needs the request and the home
      void emit(tx, 'option.saved', { request_id: 'r' });
      // @ts-expect-error option.declined carries a reason
      void emit(tx, 'option.declined', { request_id: 'r', reference: 'REQ-AAAAAA', external_id: null, property_id: 'p' });
      // @ts-expect-error 'option.rejected' is not an event
      void emit(tx, 'option.rejected', {});
      void emit(tx, 'option.saved', { request_id: 'r', reference: 'REQ-AAAAAA', external_id: null, property_id: 'p' });
    }
    // The run-time check behind the types refuses the same payloads (STRICT_EVENT_PAYLOADS): the two agree.
    const onHome = { request_id: crypto.randomUUID(), reference: 'REQ-AAAAAA', external_id: null, property_id: crypto.randomUUID() };
    expect(payloadIssues('option.saved', 'carrier', { request_id: onHome.request_id })).not.toEqual([]);
    expect(payloadIssues('option.declined', 'carrier', onHome)).toEqual(['reason: Invalid input: expected string, received undefined']);
    expect(payloadIssues('option.saved', 'carrier', onHome)).toEqual([]);
  });
});
