// The integrator guide quotes the verification helper that the delivery tests run against real
// deliveries: the two may never drift apart.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { eventsFor } from '../../shared/events/registry.ts';

const guide = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');
const helper = readFileSync(new URL('../../shared/webhooks/verify-signature.ts', import.meta.url), 'utf8');
const javascriptHelper = readFileSync(new URL('../../shared/webhooks/verify-signature.mjs', import.meta.url), 'utf8');

describe('docs/webhooks.md', () => {
  it('quotes the tested verification helper verbatim', () => {
    expect(guide).toContain(`\`\`\`ts\n${helper}\`\`\``);
  });

  it('also quotes the tested plain JavaScript copy verbatim', () => {
    expect(guide).toContain(`\`\`\`js\n${javascriptHelper}\`\`\``);
  });

  it('names every carrier event of the registry and every webhook setting', () => {
    for (const definition of eventsFor('carrier')) expect(guide).toContain(`\`${definition.event}\``);
    for (const setting of ['WEBHOOK_ALLOW_PRIVATE_NETWORKS', 'WEBHOOK_RETRY_SCHEDULE', 'WEBHOOK_TIMEOUT_MS', 'WEBHOOK_DISPATCH_INTERVAL_MS', 'WEBHOOK_DISPATCHER_SECRET']) {
      expect(guide).toContain(`\`${setting}\``);
    }
  });
});
