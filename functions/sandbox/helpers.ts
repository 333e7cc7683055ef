import { withTenant, type Caller } from '../../shared/db/tenant.ts';
import { updatePayoutStatus, type ProcessorUpdate } from '../../shared/properties/payouts.ts';
import { sandboxEmails } from '../../shared/placements/sandbox-emails.ts';

// The sandbox helpers that are one statement of a module of shared/, each in its own unit of work
// (the routes open none). The others call the real counterpart's command, which opens its own.

/** Acts on the provider's sandbox payout account as the payment processor would. */
export const actAsProcessor = (caller: Caller, update: ProcessorUpdate) => withTenant(caller, (tx) => updatePayoutStatus(tx, caller, update));

/** A page of the emails the sandbox outbox holds for the caller. */
export const outboxPage = (caller: Caller, query: { limit: number; cursor?: string }) => withTenant(caller, (tx) => sandboxEmails(tx, query));
