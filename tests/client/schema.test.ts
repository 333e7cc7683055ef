// The committed client types are what the OpenAPI document generates today: a route or schema
// change without `npm run client:generate` fails here, naming the first line that differs.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { firstDifference, regenerateCommand, renderSchema, schemaFile, schemaPath } from '../../scripts/client/schema.ts';

it(`${schemaPath} is current (regenerating produces no difference)`, async () => {
  const difference = firstDifference(readFileSync(schemaFile, 'utf8'), await renderSchema());
  expect(difference, `${schemaPath} is not what the OpenAPI document generates: run ${regenerateCommand} and commit the result`).toBeNull();
});

it('reports where a stale file parts from a fresh generation', () => {
  expect(firstDifference('a\nb\nc', 'a\nb\nc')).toBeNull();
  expect(firstDifference('a\n  limit?: number;\nc', 'a\n  limit?: string;\nc')).toBe('line 2: committed "limit?: number;", generated "limit?: string;"');
  expect(firstDifference('a\nb', 'a\nb\nc')).toBe('line 3: committed end of file, generated "c"');
});
