// Integrators generate their own clients from the published document. One third-party generator
// (@hey-api/openapi-ts, which names methods by operationId) makes a client from it in a temporary
// folder, and that client must compile under strict TypeScript: a document change that breaks
// generators fails here, not in an integrator's build.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { call } from '../helpers.ts';

const root = new URL('../../', import.meta.url);
const bin = (name: string) => new URL(`node_modules/.bin/${name}`, root).pathname;
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'generated-client-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The command's output, also when it fails, so the test shows what the tool said. */
async function outputOf(file: string, args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(file, args, { cwd: dir });
    return { code: 0, output: stdout + stderr };
  } catch (failure) {
    const { code, stdout, stderr } = failure as { code: number; stdout: string; stderr: string };
    return { code, output: stdout + stderr };
  }
}

it('generates a client with @hey-api/openapi-ts that compiles under strict TypeScript, its methods named by operationId', async () => {
  const res = await call('GET', '/openapi.json');
  expect(res.status).toBe(200);
  writeFileSync(join(dir, 'openapi.json'), res.text);

  const generated = await outputOf(bin('openapi-ts'), ['--input', 'openapi.json', '--output', 'client', '--silent', '--no-log-file']);
  expect(generated, generated.output).toMatchObject({ code: 0 });
  const sdk = readFileSync(join(dir, 'client', 'sdk.gen.ts'), 'utf8');
  for (const method of ['createHousingRequest', 'getBudgetReview', 'approveDatesProposal', 'publishHome', 'createWebhookEndpoint']) {
    expect(sdk).toContain(`export const ${method} =`);
  }

  // Strict, with no types but the standard library's and the DOM's: the client stands on its own.
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      strict: true,
      noEmit: true,
      target: 'ES2022',
      module: 'ESNext',
      moduleResolution: 'Bundler',
      lib: ['ES2022', 'DOM', 'DOM.Iterable'],
      types: [],
    },
    include: ['client/**/*.ts'],
  }));
  const compiled = await outputOf(bin('tsc'), ['-p', 'tsconfig.json']);
  expect(compiled, compiled.output).toMatchObject({ code: 0 });
}, 180_000);
