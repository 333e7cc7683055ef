// Every authenticated endpoint group, by the function name under /functions/v1 at which it is
// deployed. The local server routes by this list and the API reference documents every group in it:
// a new group is added here once.
import * as claims from './claims/app.ts';
import * as events from './events/app.ts';
import * as properties from './properties/app.ts';
import * as sandbox from './sandbox/app.ts';
import * as usage from './usage/app.ts';
import * as webhooks from './webhooks/app.ts';

export const apiGroups = [
  { name: 'claims', ...claims },
  { name: 'properties', ...properties },
  { name: 'events', ...events },
  { name: 'webhooks', ...webhooks },
  { name: 'usage', ...usage },
  { name: 'sandbox', ...sandbox },
];
