// The published document as integrators' tools take it: valid OpenAPI 3.1 by the official schema,
// a stable operationId on every operation, declared tags, and clean under two linters teams use
// (Redocly's recommended rules, Spectral's spectral:oas), each run on the served document with the
// committed configuration (redocly.yaml, .spectral.yaml), as an integrator would run it.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validate } from '@hyperjump/json-schema/openapi-3-1';
import { BASIC } from '@hyperjump/json-schema/experimental';
import { call } from '../helpers.ts';

const root = new URL('../../', import.meta.url);
const bin = (name: string) => new URL(`node_modules/.bin/${name}`, root).pathname;
const run = promisify(execFile);
/** The committed operation ids: renaming a published one breaks every SDK generated from the document. */
const publishedIds = new URL('operation-ids.json', import.meta.url);

type Operation = { operationId?: string; tags?: string[] };
type Document = {
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, Record<string, Operation>>;
  tags?: { name: string; description?: string }[];
};

/** Every operation of the document, named as the committed list names it. */
function operations(doc: Document): { name: string; operation: Operation }[] {
  return [
    ...Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation }))),
    ...Object.entries(doc.webhooks).flatMap(([event, item]) =>
      Object.entries(item).map(([method, operation]) => ({ name: `webhook ${method.toUpperCase()} ${event}`, operation }))),
  ];
}

let doc: Document;
let dir: string;
let file: string;

beforeAll(async () => {
  const res = await call('GET', '/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body as unknown as Document;
  dir = mkdtempSync(join(tmpdir(), 'openapi-'));
  file = join(dir, 'openapi.json');
  writeFileSync(file, res.text);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the published OpenAPI document', () => {
  it('is valid OpenAPI 3.1 by the official schema, Schema Objects included', async () => {
    const output = await validate('https://spec.openapis.org/oas/3.1/schema-base', doc, BASIC);
    const problems = output.valid ? [] : (output.errors ?? []).map((e) => `${decodeURIComponent(e.instanceLocation)}: ${e.absoluteKeywordLocation}`);
    expect(problems).toEqual([]);
    expect(output.valid).toBe(true);
  });

  it('gives every operation a unique operationId, and keeps every published one', () => {
    const all = operations(doc);
    const missing = all.filter(({ operation }) => !operation.operationId).map(({ name }) => name);
    expect(missing, `operations without an operationId (name one where the route is declared): ${missing.join(', ')}`).toEqual([]);

    const byId = new Map<string, string[]>();
    for (const { name, operation } of all) byId.set(operation.operationId!, [...(byId.get(operation.operationId!) ?? []), name]);
    const shared = [...byId].filter(([, names]) => names.length > 1).map(([id, names]) => `${id}: ${names.join(', ')}`);
    expect(shared, 'operationIds used twice').toEqual([]);

    const published = JSON.parse(readFileSync(publishedIds, 'utf8')) as Record<string, string>;
    const now = Object.fromEntries(all.map(({ name, operation }) => [name, operation.operationId!]));
    const changed = Object.entries(published)
      .filter(([name, id]) => now[name] !== id)
      .map(([name, id]) => `${name}: published ${id}, now ${now[name] ?? 'gone'}`);
    expect(changed, 'a published operationId changed or went: generated SDKs name their methods by it').toEqual([]);
    const unlisted = Object.keys(now).filter((name) => !(name in published)).map((name) => `"${name}": "${now[name]}"`);
    expect(unlisted, 'new operations: add them to tests/foundation/operation-ids.json').toEqual([]);
  });

  it('declares every tag its operations use, each with a sentence, and no tag that none uses', () => {
    const declared = (doc.tags ?? []).map((tag) => tag.name);
    const used = new Set(Object.values(doc.paths).flatMap((item) => Object.values(item).flatMap((operation) => operation.tags ?? [])));
    expect([...used].filter((tag) => !declared.includes(tag)), 'tags used but not declared').toEqual([]);
    expect(declared.filter((tag) => !used.has(tag)), 'tags declared but not used').toEqual([]);
    expect((doc.tags ?? []).filter((tag) => !tag.description?.trim()).map((tag) => tag.name), 'tags without a description').toEqual([]);
    expect(new Set(declared).size).toBe(declared.length);
  });

  it("passes Redocly's recommended rules with no error and no warning", async () => {
    const { stdout } = await run(bin('redocly'), ['lint', file, '--config', new URL('redocly.yaml', root).pathname, '--format', 'json'], {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    }).catch((failure: { stdout: string }) => failure);
    const report = JSON.parse(stdout) as { totals: Record<string, number>; problems: { ruleId: string; message: string; location: { pointer: string }[] }[] };
    expect(report.problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 120_000);

  it('passes Spectral (spectral:oas) with nothing to report', async () => {
    const { stdout } = await run(bin('spectral'), ['lint', file, '--ruleset', new URL('.spectral.yaml', root).pathname, '--format', 'json', '--quiet'], {
      cwd: dir,
    }).catch((failure: { stdout: string }) => failure);
    const results = JSON.parse(stdout || '[]') as { code: string; message: string; path: string[] }[];
    expect(results.map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`)).toEqual([]);
  }, 120_000);
});
