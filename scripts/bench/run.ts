// `npm run bench`: runs every scripts/bench/*.bench.ts in turn (or those named on the command line)
// and prints what each reports. Benchmarks report ratios measured in one run on one machine.
import { readdir } from 'node:fs/promises';

const dir = new URL('./', import.meta.url);
const only = process.argv.slice(2);
const files = (await readdir(dir)).filter((f) => f.endsWith('.bench.ts') && (only.length === 0 || only.some((o) => f.includes(o)))).sort();
for (const file of files) {
  console.log(`\n## ${file}`);
  const module = await import(new URL(file, dir).href);
  await module.default();
}
process.exit(0);
