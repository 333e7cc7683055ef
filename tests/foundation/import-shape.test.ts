// The shape of the code, as its imports draw it: no function folder imports another function folder
// (shared behaviour lives in shared/), shared/ never imports functions/, no two files import
// each other, directly or round a longer circle, the folders of shared/ import only the folders
// below them in one written order (so no two folders reach each other), and no domain imports
// shared/http: commands raise the domain's errors (shared/domain-errors.ts), which the HTTP layer
// alone turns into statuses. Below a function's edge (its routes, app, schemas, table of errors),
// no module imports shared/http or Hono: a command takes plain values. Read from the files' own
// import lines.
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root, sources } from './source-files.ts';


/** The project files a source file imports (relative specifiers only; packages are not files of ours). */
function importsOf(file: string, text = readFileSync(join(root, file), 'utf8')): string[] {
  const specifiers = [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]/gm), ...text.matchAll(/^\s*import\s+['"](\.{1,2}\/[^'"]+)['"]/gm)];
  return specifiers.map((m) => relative(root, join(root, dirname(file), m[1])));
}

/** The function folder a path lies in (functions/<group>/...), or null (functions/groups.ts, shared/, ...). */
const functionFolder = (path: string) => path.match(/^functions\/([^/]+)\//)?.[1] ?? null;

const code = [...sources('functions'), ...sources('shared'), ...sources('scripts'), ...sources('client')];
const edges = code.map((file) => ({ file, imports: importsOf(file) }));

/**
 * The layers of shared/, lowest first: a folder (or a file directly in shared/) imports only those
 * before it. Values (with the domains' error vocabulary) and infrastructure at the bottom, the
 * domains above them, the one file that assembles the domains' job handlers for the entry points that
 * run jobs, and on top the request pipeline, which maps the domains' errors to statuses: no domain
 * reaches it. A new folder or file of shared/ takes its place here; docs/shared-imports.md draws the
 * arrows.
 */
const sharedOrder = [
  'config.ts', 'public-url.ts', 'log.ts', 'ids.ts', 'money.ts', 'request-values.ts', 'values.ts', 'html.ts', 'cpu-clock.ts', 'pause.ts', // values, settings, logging, the CPU a call used, an abortable wait
  'domain-errors.ts', // what a command refuses with: not_found, conflict, invalid, ...
  'db', 'keys.ts', 'jobs', 'i18n', 'events', 'webhooks', // infrastructure
  'clock', 'claims', 'properties', 'placements', // domains
  'job-registry.ts', // the domains' job handlers, assembled
  'http', // the request pipeline: the domains' errors become statuses here and only here
];

/**
 * The files of a function folder that make its HTTP edge: the app, the routes, the schemas, the
 * group's table of errors, the middleware and pages. Every other file of a function folder (its
 * commands, queries, repositories and helpers) is below HTTP.
 */
const functionEdge = (path: string) => /^functions\/[^/]+\/(?:routes\/|(?:index|app|schemas|errors|guard|openapi|page)\.ts$)/.test(path);

/**
 * Imports of the HTTP layer where a domain is: any file of shared/ outside http/ importing it, and a
 * function's command, query, repository or helper module (not its edge) importing any of it.
 */
const domainImportsOfHttp = (fileEdges: { file: string; imports: string[] }[]) =>
  fileEdges.flatMap(({ file, imports }) => {
    const unit = sharedUnit(file);
    const forbidden = unit
      ? (target: string) => unit !== 'http' && sharedUnit(target) === 'http'
      : functionFolder(file) && !functionEdge(file)
        ? (target: string) => sharedUnit(target) === 'http'
        : () => false;
    return imports.filter(forbidden).map((target) => `${file} -> ${target}`);
  });

/** The packages a source file imports, each with the names it takes (`*` for a default, a namespace or a bare import). */
function packagesOf(text: string): { from: string; names: string[] }[] {
  const named = [...text.matchAll(/^\s*(?:import|export)\b([^'"]*?)\bfrom\s+['"]([^.'"][^'"]*)['"]/gm)].map((m) => {
    const braces = m[1].match(/\{([^}]*)\}/)?.[1];
    const names = (braces ?? '').split(',').map((n) => n.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0]).filter(Boolean);
    const rest = m[1].replace(/\{[^}]*\}/, '').replace(/^\s*type\b/, '').replace(/[\s,]/g, '');
    return { from: m[2], names: rest ? [...names, '*'] : names };
  });
  const bare = [...text.matchAll(/^\s*import\s+['"]([^.'"][^'"]*)['"]/gm)].map((m) => ({ from: m[1], names: ['*'] }));
  return [...named, ...bare];
}

/**
 * Hono where a command is: a function's module below its edge importing the web framework (`hono`,
 * its Context and middleware), or anything of @hono/zod-openapi but its zod (`z`, the schema
 * library the domains use too).
 */
const httpPackagesBelowEdge = (files: { file: string; text: string }[]) =>
  files.flatMap(({ file, text }) =>
    functionFolder(file) && !functionEdge(file)
      ? packagesOf(text).flatMap(({ from, names }) =>
          from === 'hono' || from.startsWith('hono/')
            ? [`${file} -> ${from}`]
            : from === '@hono/zod-openapi'
              ? names.filter((name) => name !== 'z').map((name) => `${file} -> ${from} (${name})`)
              : [])
      : []);

/** The unit of shared/ a path lies in: its folder (`placements`), or the file itself when it sits in shared/ (`config.ts`). */
const sharedUnit = (path: string) => path.match(/^shared\/([^/]+?)(?:\/|$)/)?.[1] ?? null;

interface UnitArrow {
  from: string;
  to: string;
  /** The file imports behind the arrow, for the message. */
  files: string[];
}

/** The arrows between units of shared/ that the file imports draw, each once, in a fixed order. */
function unitArrows(fileEdges: { file: string; imports: string[] }[]): UnitArrow[] {
  const arrows = new Map<string, UnitArrow>();
  for (const { file, imports } of fileEdges) {
    const from = sharedUnit(file);
    if (!from) continue;
    for (const target of imports) {
      const to = sharedUnit(target);
      if (!to || to === from) continue;
      const key = `${from} -> ${to}`;
      const arrow = arrows.get(key) ?? { from, to, files: [] };
      arrow.files.push(`${file} -> ${target}`);
      arrows.set(key, arrow);
    }
  }
  return [...arrows.values()].sort((a, b) => rank(b.from) - rank(a.from) || rank(b.to) - rank(a.to));
}

const rank = (unit: string) => sharedOrder.indexOf(unit);

/** Arrows from a unit to one at or above it in the order (an unknown unit counts as neither). */
const upward = (arrows: UnitArrow[]) =>
  arrows.filter((a) => rank(a.from) >= 0 && rank(a.to) >= 0 && rank(a.to) >= rank(a.from)).map((a) => `${a.from} -> ${a.to} (${a.files[0]})`);

/** Each circle of units reached by following arrows, written `a -> b -> a`. */
function unitCircles(arrows: UnitArrow[]): string[] {
  const graph = new Map<string, string[]>();
  for (const { from, to } of arrows) graph.set(from, [...(graph.get(from) ?? []), to]);
  const circles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (unit: string, path: string[]) => {
    if (state.get(unit) === 'done') return;
    if (state.get(unit) === 'open') {
      circles.push([...path.slice(path.indexOf(unit)), unit].join(' -> '));
      return;
    }
    state.set(unit, 'open');
    for (const next of graph.get(unit) ?? []) visit(next, [...path, unit]);
    state.set(unit, 'done');
  };
  for (const unit of [...graph.keys()].sort()) visit(unit, []);
  return circles;
}

/** The Mermaid drawing of the arrows: the order's units top (highest) to bottom, every arrow pointing down. */
function drawing(arrows: UnitArrow[]): string {
  const id = (unit: string) => unit.replace(/\W/g, '_');
  const label = (unit: string) => (unit.endsWith('.ts') ? unit : `${unit}/`);
  return [
    '```mermaid',
    'flowchart TD',
    ...[...sharedOrder].reverse().map((unit) => `  ${id(unit)}["${label(unit)}"]`),
    ...arrows.map((a) => `  ${id(a.from)} --> ${id(a.to)}`),
    '```',
  ].join('\n');
}

const drawingFile = 'docs/shared-imports.md';

/** The unit-of-work openers (shared/db/tenant.ts) a file's text names, each once. */
const opensTransaction = (text: string) => [...new Set([...text.matchAll(/\b(withTenant|inOneWrite)\b/g)].map((m) => m[1]))];

describe('the import shape', () => {
  it('reads the imports it checks', () => {
    expect(code.length).toBeGreaterThan(150);
    expect(importsOf('functions/x/routes/a.ts', "import { b } from '../../y/b.ts';\nimport type { C } from '../schemas.ts';"))
      .toEqual(['functions/y/b.ts', 'functions/x/schemas.ts']);
  });

  it('no function folder imports another function folder', () => {
    const crossing = edges.flatMap(({ file, imports }) => {
      const own = functionFolder(file);
      return own ? imports.filter((target) => functionFolder(target) && functionFolder(target) !== own).map((target) => `${file} -> ${target}`) : [];
    });
    expect(crossing).toEqual([]);
  });

  it('shared/ never imports functions/ (nor scripts/)', () => {
    const upward = edges.flatMap(({ file, imports }) =>
      file.startsWith('shared/') ? imports.filter((t) => t.startsWith('functions/') || t.startsWith('scripts/')).map((t) => `${file} -> ${t}`) : []);
    expect(upward).toEqual([]);
  });

  it('no import circle: no file reaches itself through the files it imports', () => {
    const graph = new Map(edges.map(({ file, imports }) => [file, imports.filter((t) => t !== file)]));
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        circles.push([...path.slice(path.indexOf(file)), file].join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const next of graph.get(file) ?? []) if (graph.has(next)) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    expect(circles).toEqual([]);
  });

  it('no route opens a transaction: a route file calls a command or query function, which opens its own unit of work', () => {
    const routeFiles = code.filter((file) => /^functions\/[^/]+\/routes\//.test(file));
    expect(routeFiles.length).toBeGreaterThan(20);
    const opening = routeFiles.flatMap((file) => opensTransaction(readFileSync(join(root, file), 'utf8')).map((name) => `${file}: ${name}`));
    expect(opening, 'route files that open a transaction themselves (move the work into a command or query function)').toEqual([]);
    expect(opensTransaction("import { withTenant } from '../../../shared/db/tenant.ts';\nconst rows = await withTenant(caller, (tx) => list(tx));"))
      .toEqual(['withTenant']);
    expect(opensTransaction('const [a, b] = await inOneWrite(caller, (tx) => [one(tx), two(tx)]);')).toEqual(['inOneWrite']);
    expect(opensTransaction('const rows = await listHomes(caller, filter);')).toEqual([]);
  });

  it('no domain imports shared/http: commands raise the domain\'s errors, and the HTTP layer alone maps them to statuses', () => {
    expect(domainImportsOfHttp(edges), 'domain modules importing the HTTP layer (raise shared/domain-errors.ts; take Caller from shared/db/tenant.ts, values from shared/values.ts, paging from shared/db/paging.ts)').toEqual([]);
    expect(domainImportsOfHttp([
      { file: 'shared/placements/commands/dates.ts', imports: ['shared/http/errors.ts', 'shared/domain-errors.ts'] },
      { file: 'shared/events/params.ts', imports: ['shared/http/context.ts'] },
      { file: 'shared/http/app.ts', imports: ['shared/http/errors.ts', 'shared/domain-errors.ts'] },
      { file: 'functions/claims/amend.ts', imports: ['shared/http/errors.ts', 'shared/http/context.ts', 'shared/db/tenant.ts'] },
      { file: 'functions/properties/homes.ts', imports: ['shared/http/batch.ts'] },
      { file: 'functions/claims/repository.ts', imports: ['shared/http/paging.ts', 'shared/http/errors.ts'] },
      { file: 'functions/claims/routes/requests.ts', imports: ['shared/http/errors.ts'] },
      { file: 'functions/claims/errors.ts', imports: ['shared/http/errors.ts', 'shared/http/routes.ts'] },
    ])).toEqual([
      'shared/placements/commands/dates.ts -> shared/http/errors.ts',
      'shared/events/params.ts -> shared/http/context.ts',
      'functions/claims/amend.ts -> shared/http/errors.ts',
      'functions/claims/amend.ts -> shared/http/context.ts',
      'functions/properties/homes.ts -> shared/http/batch.ts',
      'functions/claims/repository.ts -> shared/http/paging.ts',
      'functions/claims/repository.ts -> shared/http/errors.ts',
    ]);
  });

  it('no command, query or repository of a function takes Hono: the route reads the request and hands over plain values', () => {
    const files = code.filter((file) => functionFolder(file)).map((file) => ({ file, text: readFileSync(join(root, file), 'utf8') }));
    expect(httpPackagesBelowEdge(files), 'modules below a function\'s edge importing Hono (read the request in the route; pass bytes, names, values)').toEqual([]);
    expect(httpPackagesBelowEdge([
      { file: 'functions/claims/documents.ts', text: "import type { Context } from 'hono';\nimport { withTenant } from '../../shared/db/tenant.ts';" },
      { file: 'functions/claims/helpers.ts', text: "import { createMiddleware } from 'hono/factory';\nimport type { z } from '@hono/zod-openapi';" },
      { file: 'functions/properties/homes.ts', text: "import { z, createRoute } from '@hono/zod-openapi';" },
      { file: 'functions/claims/routes/documents.ts', text: "import type { Context } from 'hono';" },
    ])).toEqual([
      'functions/claims/documents.ts -> hono',
      'functions/claims/helpers.ts -> hono/factory',
      'functions/properties/homes.ts -> @hono/zod-openapi (createRoute)',
    ]);
  });

  describe('the folders of shared/', () => {
    const arrows = unitArrows(edges);

    it('are each placed once in the written order', () => {
      const units = [...new Set(sources('shared').map((file) => sharedUnit(file)!))].sort();
      expect(units, 'a folder or file of shared/ missing from sharedOrder, or one listed that is gone').toEqual([...sharedOrder].sort());
      expect(new Set(sharedOrder).size).toBe(sharedOrder.length);
    });

    it('import only folders below them: no arrow runs up the order, so no two folders reach each other', () => {
      expect(upward(arrows), 'imports from a lower folder of shared/ to a higher one (or to itself round a circle)').toEqual([]);
      expect(unitCircles(arrows), 'circles between folders of shared/').toEqual([]);
    });

    it(`are drawn, every arrow one way, in ${drawingFile}`, () => {
      const text = readFileSync(join(root, drawingFile), 'utf8');
      const drawn = text.match(/```mermaid\n[\s\S]*?```/)?.[0];
      expect(drawn, `${drawingFile} is not the drawing of the imports today; put this block in its place:\n${drawing(arrows)}\n`).toBe(drawing(arrows));
    });

    it('the checks fail on an upward arrow and on a circle', () => {
      const made = unitArrows([
        { file: 'shared/jobs/registry.ts', imports: ['shared/placements/jobs.ts', 'shared/db/client.ts'] },
        { file: 'shared/placements/jobs.ts', imports: ['shared/jobs/queue.ts', 'shared/placements/repository.ts'] },
        { file: 'shared/i18n/en.ts', imports: ['shared/placements/billing.ts'] },
      ]);
      expect(made.map((a) => `${a.from} -> ${a.to}`)).toEqual(['placements -> jobs', 'i18n -> placements', 'jobs -> placements', 'jobs -> db']);
      expect(upward(made)).toEqual([
        'i18n -> placements (shared/i18n/en.ts -> shared/placements/billing.ts)',
        'jobs -> placements (shared/jobs/registry.ts -> shared/placements/jobs.ts)',
      ]);
      expect(unitCircles(made)).toEqual(['placements -> jobs -> placements']);
    });
  });
});
