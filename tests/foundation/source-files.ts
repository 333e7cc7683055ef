// The project's own source files, read as text by the tests that check the code's shape.
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

/** The project's root folder. */
export const root = normalize(join(dirname(new URL(import.meta.url).pathname), '..', '..'));

/** Every TypeScript source file below `folder` (relative to the project), generated files aside. */
export function sources(folder: string): string[] {
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
