// The typed client is a package an integrator installs: `npm run build:client` compiles it to
// client/dist, and its package.json's exports lead to the built module and its declarations.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const clientDir = new URL('../../client/', import.meta.url);

describe('the client package', () => {
  it('builds, and its exports lead to a working module with its types', async () => {
    await promisify(execFile)('npm', ['run', '--silent', 'build:client'], { cwd: new URL('../../', import.meta.url) });
    const manifest = JSON.parse(readFileSync(new URL('package.json', clientDir), 'utf8'));
    const entry = manifest.exports['.'];
    expect(manifest.dependencies).toEqual({ 'openapi-fetch': JSON.parse(readFileSync(new URL('../package.json', clientDir), 'utf8')).devDependencies['openapi-fetch'] });
    expect(existsSync(new URL(entry.types, clientDir))).toBe(true);
    expect(readFileSync(new URL(entry.types, clientDir), 'utf8')).toContain('export declare function createClient');

    const built = await import(new URL(entry.import, clientDir).href);
    const seen: Request[] = [];
    const api = built.createClient({
      baseUrl: 'https://example.test/functions/v1',
      apiKey: 'svc_sk_test',
      fetch: async (request: Request) => {
        seen.push(request);
        return Response.json({ error: { code: 'not_found', message: 'No such housing request.' } }, { status: 404 });
      },
    });
    const { data, error, response } = await api.GET('/claims/{reference}', { params: { path: { reference: 'REQ-ZZZZZZ' } } });
    expect([data, error?.error.code, response.status]).toEqual([undefined, 'not_found', 404]);
    expect(seen[0].url).toBe('https://example.test/functions/v1/claims/REQ-ZZZZZZ');
    expect(seen[0].headers.get('authorization')).toBe('Bearer svc_sk_test');
    expect(await built.parseWebhook('{}', 't=1,v1=00', 'whsec_x')).toBeNull();
  });
});
