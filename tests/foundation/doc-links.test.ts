// The README is a start page (what the service is, the two commands, a first call, where each guide
// is), short enough to read in five minutes; everything else is in docs/. Every relative link of the
// README and the guides leads to a file that exists and, when it names one, to a heading or anchor
// that file has, so moving a section cannot leave a link behind.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const docs = ['README.md', 'SECURITY.md', 'client/README.md', ...readdirSync(new URL('docs/', root)).filter((n) => n.endsWith('.md')).map((n) => `docs/${n}`)];
const read = (file: string) => readFileSync(new URL(file, root), 'utf8');

/** The text outside fenced code blocks and inline code: what a reader sees as prose and links. */
function prose(text: string): string {
  let fenced = false;
  return text
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line.replace(/`[^`]*`/g, '');
    })
    .join('\n');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens; repeats numbered. */
function anchors(text: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const heading = line.match(/^#{1,6}\s+(.*?)\s*#*\s*$/);
    if (heading) {
      const slug = heading[1].toLowerCase().replace(/<[^>]+>/g, '').replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      found.add(count === 0 ? slug : `${slug}-${count}`);
    }
    for (const named of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(named[1]);
  }
  return found;
}

/** Every relative link of a markdown file: [text](target), outside code. */
function relativeLinks(text: string): string[] {
  return [...prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1])
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('the README is a start page', () => {
  it('is at most 250 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(250);
  });

  it('says what the service is, the two commands, a first call, and where each guide is', () => {
    const readme = read('README.md');
    expect(readme).toMatch(/npm ci/);
    expect(readme).toMatch(/npm start/);
    expect(readme).toMatch(/npm test/);
    expect(readme).toMatch(/## A first call/);
    for (const guide of docs.filter((file) => file.startsWith('docs/'))) {
      expect(readme, `the README names ${guide}`).toContain(`](${guide}`);
    }
  });
});

describe('every relative link resolves', () => {
  it.each(docs)('%s', (file) => {
    const links = relativeLinks(read(file));
    const broken: string[] = [];
    for (const link of links) {
      const [path, anchor] = link.split('#');
      const target = path === '' ? new URL(file, root) : new URL(path, new URL(file, root));
      if (!existsSync(target)) {
        broken.push(`${link}: no such file`);
        continue;
      }
      if (anchor === undefined) continue;
      if (statSync(target).isDirectory() || !target.pathname.endsWith('.md')) {
        broken.push(`${link}: an anchor into something that is not a markdown file`);
        continue;
      }
      if (!anchors(readFileSync(target, 'utf8')).has(decodeURIComponent(anchor))) broken.push(`${link}: no such heading or anchor`);
    }
    expect(broken).toEqual([]);
  });

  it('finds links and anchors as GitHub does', () => {
    const text = '# A stay over time (placement)\n## The household\'s language\n## From an empty Supabase project to delivery by pg_cron\n## Set up\n## Set up\n```sh\n# not a heading\n```\n<a id="error-not_found"></a>';
    expect([...anchors(text)]).toEqual(['a-stay-over-time-placement', 'the-households-language', 'from-an-empty-supabase-project-to-delivery-by-pg_cron', 'set-up', 'set-up-1', 'error-not_found']);
    expect(relativeLinks('[a](docs/x.md#y) [b](https://example.com) `[c](nope.md)` [d](#here)')).toEqual(['docs/x.md#y', '#here']);
  });
});
