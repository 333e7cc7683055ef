import { withTenant, type Caller } from '../../shared/db/tenant.ts';
import { readPayoutStatus, type SetupLink } from '../../shared/properties/payouts.ts';
import { listBookings, type BookingPageQuery } from './bookings-repository.ts';

// The provider's account: its bookings and its payout account, each read in its own unit of work
// (the routes open none); the SQL is in the repositories.

/** A page of the provider's bookings with the money of each. */
export const bookingsPage = (caller: Caller, query: BookingPageQuery) => withTenant(caller, (tx) => listBookings(tx, query));

/** The payout account's status, with the setup link when the caller may follow it. */
export const payoutStatus = (caller: Caller, link: SetupLink) => withTenant(caller, (tx) => readPayoutStatus(tx, caller, link));
