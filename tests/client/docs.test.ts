// The typed-client guide (docs/client.md) quotes the example that the client tests run against the API
// and the type check compiles: the two may never drift apart.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const guide = readFileSync(new URL('../../docs/client.md', import.meta.url), 'utf8');
const example = readFileSync(new URL('../../client/example.ts', import.meta.url), 'utf8');

it('docs/client.md quotes client/example.ts verbatim, from its first declaration on', () => {
  const declarations = example.slice(example.indexOf('\n/**') + 1);
  expect(declarations).toMatch(/^\/\*\*/);
  expect(guide).toContain(`\`\`\`ts\n${declarations}\`\`\``);
});
