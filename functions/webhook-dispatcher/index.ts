import { createDispatcherApp } from './app.ts';
import { pinnedTransport } from './deno-transport.ts';
import { config } from '../../shared/config.ts';

// Deliveries connect only to the address their check resolved (no DNS rebinding).
Deno.serve(createDispatcherApp(undefined, undefined, pinnedTransport({ allowPrivate: config.webhookAllowPrivateNetworks() })).fetch);
