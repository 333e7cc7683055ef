// The code, the OpenAPI document and the specification cannot drift apart: the error codes and
// their statuses, each route's documented error responses, and the events and their audiences are
// checked against the specification's own tables (the reference material beside the project, as
// CI lays it out).
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../functions/docs/app.ts';
import { alsoAt, errorCodes } from '../../shared/http/errors.ts';
import { eventsFor } from '../../shared/events/registry.ts';
import type { OpenApiDocument } from '../api-types.ts';

const specFile = new URL('../../../shared/spec/SPEC.md', import.meta.url);
const spec = existsSync(specFile) ? readFileSync(specFile, 'utf8') : '';

/** The statuses the code table (and its exceptions) give a code. */
const statusesOf = (code: string): number[] =>
  [errorCodes[code as keyof typeof errorCodes], ...((alsoAt as Record<string, readonly number[]>)[code] ?? [])];

/** The rows of the markdown table that follows `heading` (a line of the specification). */
function tableAfter(heading: string): string[][] {
  const lines = spec.slice(spec.indexOf(heading)).split('\n').slice(1);
  const start = lines.findIndex((l) => l.startsWith('|'));
  const rows = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split('|').slice(1, -1).map((cell) => cell.trim()));
  }
  return rows;
}

describe.runIf(spec)('the specification, the code table and the document agree', () => {
  it('every code of the specification is in the code table, with the status the specification states', () => {
    const rows = tableAfter('Codes, with status where stated:');
    expect(rows.length).toBeGreaterThan(30);
    for (const [code, meaning] of rows) {
      expect(errorCodes, code).toHaveProperty(code);
      const inParentheses = [...meaning.matchAll(/\(([^)]*)\)/g)].map((m) => m[1]).join(' ');
      const stated = [...inParentheses.matchAll(/\b([45]\d\d)\b/g)].map((m) => Number(m[1]));
      const ours = statusesOf(code);
      for (const status of stated) expect(ours, `${code}: ${meaning}`).toContain(status);
    }
  });

  it('every error response of the document lists codes of the table, each under a status the table gives it', () => {
    const document = openApiDocument() as unknown as OpenApiDocument;
    let checked = 0;
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          if (Number(status) < 400) continue;
          const codes = response.content['application/json']?.schema.allOf?.[1]?.properties?.error.properties?.code.enum as string[] | undefined;
          // A route's own answer under an error status (a batch's 422 with its results) is not an error object.
          if (!codes) continue;
          for (const code of codes) {
            const ours = statusesOf(code);
            expect(ours, `${method} ${path}: ${code} under ${status}`).toContain(Number(status));
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(300);
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (operation.responses['401']) {
          expect(operation.responses['401'].content['application/json'].schema.allOf, `${method} ${path}`).toBeDefined();
        }
      }
    }
    // The code the specification gives two statuses: 409 on dates, 404 on cancel-booking.
    const codesAt = (path: string, status: string) =>
      document.paths[path].post.responses[status].content['application/json'].schema.allOf?.[1].properties?.error.properties?.code.enum;
    expect(codesAt('/claims/{reference}/dates', '409')).toContain('not_on_request');
    expect(codesAt('/claims/{reference}/cancel-booking', '404')).toContain('not_on_request');
  });

  it('the event registry sends each side the events the specification lists for it', () => {
    const listed = (heading: string) => tableAfter(heading).map(([event]) => event).sort();
    const carrier = eventsFor('carrier').map((d) => d.event);
    // payment.refunded is named by the specification as a refund request's outcome, outside the tables;
    // booking.dates_changed (stays shortened or extended after booking) and payment.duplicate (a
    // second charge refunded automatically) are this service's additions, as are payment.refund_failed
    // (an approved refund the service gave up issuing; sent to both sides) and household_link.undelivered
    // (the household's link that did not go out).
    const additions = ['payment.refunded', 'booking.dates_changed', 'payment.duplicate', 'payment.refund_failed', 'household_link.undelivered'];
    expect(carrier.filter((e) => !additions.includes(e)).sort()).toEqual(listed('Events for carriers:'));
    // application.received is this service's addition for the landlord's answer through the API; calendar.conflict
    // (an imported calendar over a stay booked here) and calendar.feed_failing (an imported calendar failing to be read) too,
    // and refund.requested (a refund asked, which the landlord approves).
    const providerAdditions = ['application.received', 'payment.refund_failed', 'calendar.conflict', 'calendar.feed_failing', 'refund.requested'];
    expect(eventsFor('provider').map((d) => d.event).filter((e) => !providerAdditions.includes(e)).sort()).toEqual(listed('Events for providers:'));
  });
});
