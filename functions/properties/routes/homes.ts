import { single } from '../../../shared/http/envelope.ts';
import { createRoutes, dataOf, jsonBody, jsonResponse, pageOf } from '../../../shared/http/routes.ts';
import { defineRoute } from '../errors.ts';
import { batchAnswer, batchResponses, parseItems, refusedItem, succeededItem } from '../../../shared/http/batch.ts';
import { cursorRowId, rowPage } from '../../../shared/http/paging.ts';
import { renderHome } from '../homes-repository.ts';
import { changeHome, homeOf, homesPage, portfolioReadiness, publishBatch, publishHome } from '../homes.ts';
import { Home, HomeBatchBody, HomeBatchResult, HomeInput, HomePatch, HomeRefParams, HomesQuery, Readiness } from '../schemas.ts';

// Publishing and reading homes. Routes with a fixed path come before /{ref} so that they win.

const notOffered = 'Deleting a home is not offered: set status to unavailable instead (deletion would lose its history and placements).';

export const homeRoutes = createRoutes()
  .openapi(
    defineRoute({
      method: 'post',
      path: '/batch',
      operationId: 'publishHomeBatch',
      tags: ['Homes'],
      summary: 'Publish up to 100 homes in one call',
      description:
        'Each item is a home as for POST /properties and is handled on its own: a bad item is reported in `results` and does ' +
        'not affect the others. Items with an `external_id` update that home in place (`updated: true`); items without one ' +
        'create a new home, so a retry duplicates them unless the call carries an Idempotency-Key. ' +
        'Within one call an external_id may appear once; a repeat is refused. ' +
        'The answer is the batch result at the top level, as for every batch route: `created`, `failed`, `updated` and `results` ' +
        'in the order sent. Status 201 when every item succeeded, 200 when every item succeeded and each refreshed an existing ' +
        'home (nothing was created, as POST /properties answers an update in place), 207 when some were refused, 422 when all were.',
      scope: 'properties:write',
      request: { body: jsonBody(HomeBatchBody) },
      responses: batchResponses(HomeBatchResult, 'properties', 'Every item succeeded and refreshed an existing home under its external_id.'),
    }),
    async (c) => {
      const { properties } = c.req.valid('json');
      const { created, updated, outcomes } = await publishBatch(c.get('caller'), parseItems(HomeInput, properties));
      const results = outcomes.map((outcome, index) =>
        outcome.ok
          ? succeededItem(index, outcome.externalId, { updated: outcome.updated, data: outcome.data })
          : refusedItem(index, properties[index], outcome.error, { updated: false }));
      const { body, status } = batchAnswer({ created }, results, { updated }, { createdNothing: created === 0 });
      return c.json(body, status);
    },
  )
  .openapi(
    defineRoute({
      method: 'get',
      path: '/readiness',
      operationId: 'getPortfolioReadiness',
      tags: ['Homes'],
      summary: 'Why homes are or are not offered, across the portfolio',
      description: 'Counts of listed and not listed homes, the missing fields ranked by how many homes they hold back, and up to twenty homes that are not listed.',
      scope: 'properties:read',
      responses: { 200: jsonResponse(dataOf(Readiness), 'Readiness of the portfolio in the key\'s environment.') },
    }),
    async (c) => c.json(single(await portfolioReadiness(c.get('caller'))), 200),
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/',
      operationId: 'publishHome',
      tags: ['Homes'],
      summary: 'Publish a home, or update it in place by external_id',
      description:
        'Required: address, city, state, zip_code, monthly_rate (above zero), bedrooms, bathrooms. Every other field improves matching ' +
        'and decides whether the home is listed (see `missing_fields`). With an `external_id` already used in this environment the home is ' +
        'updated in place (200): every field takes the sent value or becomes absent (currency and contract_template their defaults), ' +
        'except `status`, which is kept when not sent. ' +
        'Without `external_id` a new home is created (201) and a retry creates a second copy unless the call carries an Idempotency-Key. ' +
        notOffered,
      scope: 'properties:write',
      request: { body: jsonBody(HomeInput) },
      responses: {
        200: jsonResponse(dataOf(Home), 'The home under that external_id was updated in place.'),
        201: jsonResponse(dataOf(Home), 'A new home was created.'),
      },
    }),
    async (c) => {
      const { row, created } = await publishHome(c.get('caller'), c.req.valid('json'));
      return created ? c.json(single(renderHome(row)), 201) : c.json(single(renderHome(row)), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'get',
      path: '/',
      operationId: 'listHomes',
      tags: ['Homes'],
      summary: "List the portfolio with each home's readiness",
      description: 'Newest first, keyset-paged: pass `next_cursor` back as `cursor` until it is null.',
      scope: 'properties:read',
      request: {
        query: HomesQuery,
      },
      responses: { 200: jsonResponse(pageOf(Home), 'One page of homes.') },
      errors: {
        422: {
          invalid_field: 'a bad limit, status or cursor.',
        },
      },
    }),
    async (c) => {
      const { limit, status, cursor } = c.req.valid('query');
      const rows = await homesPage(c.get('caller'), { limit, status, after: cursorRowId(cursor) });
      return c.json(rowPage(rows, limit, renderHome), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'get',
      path: '/{ref}',
      operationId: 'getHome',
      tags: ['Homes'],
      summary: 'Read one home by id or external_id',
      scope: 'properties:read',
      request: { params: HomeRefParams },
      responses: { 200: jsonResponse(dataOf(Home), 'The home.') },
      errors: {
        404: {
          not_found: 'no such home for this organisation in this environment.',
        },
      },
    }),
    async (c) => {
      const row = await homeOf(c.get('caller'), c.req.valid('param').ref);
      return c.json(single(renderHome(row)), 200);
    },
  )
  .openapi(
    defineRoute({
      method: 'patch',
      path: '/{ref}',
      operationId: 'updateHome',
      tags: ['Homes'],
      summary: 'Change any fields of a home, including status',
      description:
        'Only the fields sent change; `null` clears an optional field. `status` is available, pending or unavailable. ' +
        'Readiness (`listed`, `missing_fields`, `verified`) is recomputed. ' +
        notOffered,
      scope: 'properties:write',
      request: { params: HomeRefParams, body: jsonBody(HomePatch) },
      responses: { 200: jsonResponse(dataOf(Home), 'The home as changed.') },
      errors: {
        404: {
          not_found: 'no such home for this organisation in this environment.',
        },
        422: {
          invalid_field: 'a field is wrong, or external_id is already used by another home.',
        },
      },
    }),
    async (c) => {
      const row = await changeHome(c.get('caller'), c.req.valid('param').ref, c.req.valid('json'));
      return c.json(single(renderHome(row)), 200);
    },
  );
