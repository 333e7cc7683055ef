import { list, single } from '../../../shared/http/envelope.ts';
import { createRoutes, dataOf, jsonBody, jsonResponse, listOf } from '../../../shared/http/routes.ts';
import { defineRoute } from '../errors.ts';
import { blockDates, homeBlocks, releaseBlock, syncCalendars } from '../availability.ts';
import { batchAnswer, batchResponses, parseItems, refusedItem, succeededItem } from '../../../shared/http/batch.ts';
import { Block, BlockParams, BlocksQuery, BlockInput, BulkBlockInput, BulkBlocksBody, BulkBlocksResult, HomeRefParams } from '../schemas.ts';

// Availability calendars: blocks per home, the bulk calendar sync, and releasing a provider block.
// Dates are inclusive on both ends.

const notFoundError = { 404: { not_found: 'no such home for this organisation in this environment.' } };

export const availabilityRoutes = createRoutes();
// Bulk items are validated one by one in the handler (a bad item must not fail the call), so the
// body schema only references the item schema: register it for the reference to resolve.
availabilityRoutes.openAPIRegistry.register('AvailabilityBulkItem', BulkBlockInput);

availabilityRoutes
  .openapi(
    defineRoute({
      method: 'post',
      path: '/availability',
      operationId: 'syncAvailability',
      tags: ['Availability'],
      summary: 'Sync calendars: up to 500 blocks across homes in one call',
      description:
        'Each block names its home by `property_id` or `external_id`. With `replace: true` the blocks the provider set earlier on the ' +
        'homes named in the payload are cleared first, then the sent blocks are added; homes not named are untouched, and holds the ' +
        'service took for a lease or booking always survive. A refused block changes nothing: a home whose every block was refused ' +
        'keeps its calendar. Without `replace` the blocks are added, so a retry duplicates them: send an Idempotency-Key. ' +
        'Everything happens in one transaction; concurrent syncs of the same home run one after the other. ' +
        'The answer is the batch result at the top level, as for every batch route: `blocked`, `failed`, `replaced_existing`, ' +
        '`homes_touched` and `results` in the order sent (with the item\'s `external_id` when it named its home by one). ' +
        'Status 201 when every block was added, 207 when some were refused, 422 when all were.',
      scope: 'properties:write',
      request: { body: jsonBody(BulkBlocksBody) },
      responses: batchResponses(BulkBlocksResult, 'blocks'),
    }),
    async (c) => {
      const { replace, blocks } = c.req.valid('json');
      const parsed = parseItems(BulkBlockInput, blocks);
      const sent = blocks.map((block, index) => ({ sent: block, parsed: parsed[index] }));
      const { blocked, replaced_existing, homes_touched, outcomes } = await syncCalendars(c.get('caller'), sent, replace);
      const results = outcomes.map(({ ref, property_id, ...outcome }, index) =>
        outcome.ok
          ? succeededItem(index, outcome.externalId, { ref, property_id, block_id: outcome.block_id })
          : refusedItem(index, blocks[index], outcome.error, { ref, property_id }));
      const { body, status } = batchAnswer({ blocked }, results, { replaced_existing, homes_touched });
      return c.json(body, status);
    },
  )
  .openapi(
    defineRoute({
      method: 'get',
      path: '/{ref}/availability',
      operationId: 'listAvailabilityBlocks',
      tags: ['Availability'],
      summary: "A home's availability blocks",
      description:
        'Blocks of the key\'s environment in date order, the provider\'s own and the holds the service took for a lease or booking ' +
        '(source `service`, with `lease_agreement_id`; not removable through the interface). `from`/`to` keep the blocks touching that window.',
      scope: 'properties:read',
      request: {
        params: HomeRefParams,
        query: BlocksQuery,
      },
      responses: { 200: jsonResponse(listOf(Block), 'The blocks.') },
      errors: notFoundError,
    }),
    async (c) => {
      const blocks = await homeBlocks(c.get('caller'), c.req.valid('param').ref, c.req.valid('query'));
      return c.json(list(blocks), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/{ref}/availability',
      operationId: 'blockDates',
      tags: ['Availability'],
      summary: 'Block dates on a home',
      description: 'Adds a provider block (inclusive dates). A retry adds a second block unless the call carries an Idempotency-Key.',
      scope: 'properties:write',
      request: { params: HomeRefParams, body: jsonBody(BlockInput) },
      responses: { 201: jsonResponse(dataOf(Block), 'The block was added.') },
      errors: {
        ...notFoundError,
        422: {
          invalid_field: 'a bad date, or end_date before start_date.',
        },
      },
    }),
    async (c) => {
      const block = await blockDates(c.get('caller'), c.req.valid('param').ref, c.req.valid('json'));
      return c.json(single(block), 201);
    },
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/{ref}/availability/{block_id}/release',
      operationId: 'releaseBlock',
      tags: ['Availability'],
      summary: 'Release a provider block',
      description: 'Removes a block the provider set. A hold the service took for a lease or booking cannot be released here: cancel the placement instead.',
      scope: 'properties:write',
      request: { params: BlockParams },
      responses: { 200: jsonResponse(dataOf(Block), 'The block as it was before release.') },
      errors: {
        404: {
          not_found: 'no such home, or no such block on it, in this environment.',
        },
        409: {
          not_yours_to_release: 'the block is a service hold for a lease or booking, or was read from an imported calendar.',
        },
      },
    }),
    async (c) => {
      const { ref, block_id } = c.req.valid('param');
      const block = await releaseBlock(c.get('caller'), ref, block_id);
      return c.json(single(block), 200);
    },
  );
