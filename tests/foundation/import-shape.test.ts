// The shape of the code, as its imports draw it: no function folder imports another function folder
// (shared behaviour lives in shared/), shared/ never imports functions/, and no two files import
// each other, directly or round a longer circle. Read from the files' own import lines.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = normalize(join(dirname(new URL(import.meta.url).pathname), '..', '..'));

/** Every TypeScript source file below `folder` (relative to the project), generated files aside. */
function sources(folder: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(join(root, dir))) {
      const path = join(dir, name);
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if (/\.(ts|mts)$/.test(name) && !name.endsWith('.generated.ts')) found.push(path);
    }
  };
  walk(folder);
  return found;
}

/** The project files a source file imports (relative specifiers only; packages are not files of ours). */
function importsOf(file: string, text = readFileSync(join(root, file), 'utf8')): string[] {
  const specifiers = [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?\bfrom\s+['"](\.{1,2}\/[^'"]+)['"]/gm), ...text.matchAll(/^\s*import\s+['"](\.{1,2}\/[^'"]+)['"]/gm)];
  return specifiers.map((m) => relative(root, join(root, dirname(file), m[1])));
}

/** The function folder a path lies in (functions/<group>/...), or null (functions/groups.ts, shared/, ...). */
const functionFolder = (path: string) => path.match(/^functions\/([^/]+)\//)?.[1] ?? null;

const code = [...sources('functions'), ...sources('shared'), ...sources('scripts'), ...sources('client')];
const edges = code.map((file) => ({ file, imports: importsOf(file) }));

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
});
