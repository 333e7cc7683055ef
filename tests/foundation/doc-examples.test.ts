// The curl examples of the guides are calls the API answers: each names a documented operation
// (method and path), sends JSON with its Content-Type, and a guide names its base address one way.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../functions/docs/app.ts';
import type { OpenApiDocument } from '../api-types.ts';

const docsDir = new URL('../../docs/', import.meta.url);
const guides = [
  ...readdirSync(docsDir).filter((name) => name.endsWith('.md')).map((name) => ({ name: `docs/${name}`, text: readFileSync(new URL(name, docsDir), 'utf8') })),
  { name: 'README.md', text: readFileSync(new URL('../../README.md', import.meta.url), 'utf8') },
];

interface Example {
  guide: string;
  command: string;
  method: string;
  base: string;
  path: string;
}

/** Every curl command of a guide (continued lines joined) that calls the API through a base variable. */
function examples(guide: { name: string; text: string }): Example[] {
  const commands = guide.text.replace(/\\\n\s*/g, ' ').split('\n').filter((line) => /^\s*curl\s/.test(line));
  return commands.flatMap((command) => {
    const url = command.match(/"?\$(\w+)(\/[^\s"?|]*)/);
    if (!url) return [];
    const explicit = command.match(/-X\s+(\w+)/)?.[1];
    const method = (explicit ?? (/\s(-d|--data|-F)\s/.test(command) ? 'POST' : 'GET')).toLowerCase();
    return [{ guide: guide.name, command, method, base: url[1], path: url[2] }];
  });
}

const all = guides.flatMap(examples);
const document = openApiDocument() as unknown as OpenApiDocument;
const templates = Object.keys(document.paths).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

describe('the guides\' curl examples', () => {
  it('are found', () => {
    expect(all.length).toBeGreaterThan(30);
  });

  it.each(all.map((e) => [`${e.guide}: ${e.method.toUpperCase()} ${e.path}`, e] as const))('%s is a documented operation', (_, example) => {
    const path = example.path.replace(/\$\{?\w+\}?/g, 'x');
    const operation = templates.find((t) => t.pattern.test(path));
    expect(operation, example.command).toBeDefined();
    expect(Object.keys(document.paths[operation!.template]), example.command).toContain(example.method);
  });

  it('send a JSON body with its Content-Type (a multipart upload with -F)', () => {
    const bodies = all.filter((e) => /\s(-d|--data)\s/.test(e.command));
    expect(bodies.length).toBeGreaterThan(10);
    for (const example of bodies) expect(example.command, example.guide).toMatch(/Content-Type: application\/json/i);
  });

  it('name the base address one way in each guide', () => {
    for (const guide of new Set(all.map((e) => e.guide))) {
      expect(new Set(all.filter((e) => e.guide === guide).map((e) => e.base)), guide).toHaveProperty('size', 1);
    }
  });
});
