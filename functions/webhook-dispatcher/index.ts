import { createDispatcherApp } from './app.ts';
import { pinnedTransport } from './deno-transport.ts';
import { config } from '../../shared/config.ts';
import { calendarFeedAnswerBytes, useCalendarFeedNetwork } from '../../shared/properties/calendar-import-job.ts';
import { requirePublicBaseUrl } from '../../shared/http/public-url.ts';

// The addresses this function hands out need the public one: without it, it stops here, named.
requirePublicBaseUrl();

// Deliveries and calendar-feed fetches (a job this function runs) connect only to the address
// their check resolved (no DNS rebinding).
useCalendarFeedNetwork({ transport: pinnedTransport({ allowPrivate: config.webhookAllowPrivateNetworks(), maxAnswerBytes: calendarFeedAnswerBytes() }) });
Deno.serve(createDispatcherApp(undefined, undefined, pinnedTransport({ allowPrivate: config.webhookAllowPrivateNetworks() })).fetch);
