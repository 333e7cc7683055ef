import { createRoutes, dataOf, jsonResponse } from '../../../shared/http/routes.ts';
import { defineRoute } from '../errors.ts';
import { single } from '../../../shared/http/envelope.ts';
import { flushUsage } from '../../../shared/http/middleware/usage.ts';
import { foldDays } from '../repository.ts';
import { revokeOwnKey, usageOf } from '../usage.ts';
import { RevokedKey, Usage } from '../schemas.ts';

const tags = ['Usage'];

export const usageRoutes = createRoutes()
  .openapi(
    defineRoute({
      method: 'get',
      path: '/',
      operationId: 'getUsage',
      tags,
      summary: "Request counts of the calling key and its organisation, per day and status class, for the last 30 days",
      description:
        "Counts cover the key's environment. Each request is counted once it has been authenticated; counts are written " +
        'in batches about once a second, so a request answered by another server instance can take that long to appear.',
      scope: 'any-read',
      responses: { 200: jsonResponse(dataOf(Usage), 'Usage of the last 30 days (UTC days).') },
    }),
    async (c) => {
      const caller = c.get('caller');
      // This instance's counts not yet written are written first: a caller reads its own requests.
      await flushUsage();
      const { since, rows } = await usageOf(caller);
      return c.json(
        single({
          since,
          key: { id: caller.keyId, ...foldDays(rows.filter((row) => row.key_id === caller.keyId)) },
          organisation: { id: caller.orgId, environment: caller.environment, ...foldDays(rows) },
        }),
        200,
      );
    },
  )
  .openapi(
    defineRoute({
      method: 'post',
      path: '/keys/self/revoke',
      operationId: 'revokeOwnKey',
      tags,
      summary: 'Revoke the calling key at once',
      description: 'The key stops working for every following request. Create a replacement first (rotation: create, deploy, revoke).',
      scope: 'none',
      responses: { 200: jsonResponse(dataOf(RevokedKey), 'The key is revoked.') },
    }),
    async (c) => {
      const caller = c.get('caller');
      const row = await revokeOwnKey(caller);
      return c.json(single({ id: row.id, revoked_at: row.revoked_at.toISOString() }), 200);
    },
  );
