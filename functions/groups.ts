// Every authenticated endpoint group, by the function name under /functions/v1 at which it is
// deployed. The local server routes by this list and the API reference documents every group in it:
// a new group is added here once.
import * as claims from './claims/app.ts';
import * as events from './events/app.ts';
import * as properties from './properties/app.ts';
import * as sandbox from './sandbox/app.ts';
import * as usage from './usage/app.ts';
import * as webhooks from './webhooks/app.ts';
import { calendarFeedRoute } from './calendar/openapi.ts';

/**
 * Addresses outside the groups that the API reference documents all the same: the calendar feed a
 * channel polls without a key (functions/calendar).
 */
export const publicDocumentedRoutes = [calendarFeedRoute];

export const apiGroups = [
  { name: 'claims', ...claims },
  { name: 'properties', ...properties },
  { name: 'events', ...events },
  { name: 'webhooks', ...webhooks },
  { name: 'usage', ...usage },
  { name: 'sandbox', ...sandbox },
];

/**
 * The tags the groups' routes name, in the order the reference page shows them (a carrier's work,
 * then a provider's, then what both sides share), each with its sentence. A route naming a tag not
 * declared here fails the document's lint.
 */
export const apiTags = [
  {
    name: 'Housing requests',
    description: "A carrier's requests to house a household: open them (one or a batch), read, list and amend them, see the homes that match, file documents and read each request's history.",
  },
  {
    name: 'Placement',
    description: 'Placing a household in a home: the budget review, the homes put to the household, the dates and the lease, move-in, cancellation, refunds, extensions and the statement of the stay.',
  },
  {
    name: 'Homes',
    description: "A provider's portfolio: publish homes (one or a batch), read, list and change them, and see why each is or is not offered.",
  },
  {
    name: 'Availability',
    description: "A provider's calendars: block and release dates on a home, sync blocks across homes in one call, and keep them in step with other channels by iCalendar feeds out and in.",
  },
  {
    name: 'Bookings',
    description: "What placements ask of a provider: the applications for its homes and the refund requests on them, each to approve or decline.",
  },
  {
    name: 'Bookings and payouts',
    description: "A provider's bookings with their earnings, and the status of its payout account.",
  },
  {
    name: 'Events',
    description: "The organisation's event log and the catalogue of event types with a sample of each; replaying an event, and simulating one in sandbox.",
  },
  {
    name: 'Webhooks',
    description: 'Endpoints that receive events as signed deliveries: create, change and delete them, rotate their secrets, send a test ping and read every delivery and its attempts.',
  },
  {
    name: 'Usage',
    description: "The calling key's and its organisation's request counts, and revoking the calling key.",
  },
  {
    name: 'Sandbox',
    description: "Sandbox keys only: act as the household, the landlord, the payer and the payment processor, read the emails the service sent, and set the organisation's clock.",
  },
];
