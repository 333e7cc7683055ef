// What `supabase functions deploy` ships, reproduced for the tests: the functions that
// supabase/config.toml declares, each with the import map the CLI resolves for it, and the files of
// its module graph, copied into a temporary folder that holds nothing else (no deno.json unless the
// import map is one, no node_modules: npm packages come from the npm registry as on Supabase).
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const supabaseDir = join(root, 'supabase');
export const deno = join(root, 'node_modules/.bin/deno');

export interface DeployedFunction {
  name: string;
  /** Entry point, relative to the project root. */
  entrypoint: string;
  /** The import map the CLI uses for it, relative to the project root; undefined when none. */
  importMap: string | undefined;
}

/** The `[functions.<name>]` sections of supabase/config.toml (string values only). */
export function configuredFunctions(configText = readFileSync(join(supabaseDir, 'config.toml'), 'utf8')): Map<string, Record<string, string>> {
  const sections = new Map<string, Record<string, string>>();
  let current: Record<string, string> | undefined;
  for (const line of configText.split('\n')) {
    const header = line.match(/^\s*\[functions\.("?)([A-Za-z0-9_-]+)\1\]\s*$/);
    if (header) {
      current = {};
      sections.set(header[2], current);
      continue;
    }
    if (/^\s*\[/.test(line)) current = undefined;
    const entry = line.match(/^\s*([a-z_]+)\s*=\s*"([^"]*)"\s*$/);
    if (current && entry) current[entry[1]] = entry[2];
  }
  return sections;
}

/**
 * The CLI's order: `import_map` of the function's section (relative to supabase/), else a deno.json
 * or deno.jsonc beside the entry point, else supabase/functions/import_map.json, else none.
 */
export function deployedFunctions(configText?: string): DeployedFunction[] {
  return [...configuredFunctions(configText)].map(([name, section]) => {
    const entrypoint = resolve(supabaseDir, section.entrypoint ?? `functions/${name}/index.ts`);
    const candidates = [
      section.import_map ? resolve(supabaseDir, section.import_map) : undefined,
      join(dirname(entrypoint), 'deno.json'),
      join(dirname(entrypoint), 'deno.jsonc'),
      join(supabaseDir, 'functions/import_map.json'),
    ];
    const importMap = section.import_map ? candidates[0] : candidates.slice(1).find((file) => file && existsSync(file));
    return { name, entrypoint: relative(root, entrypoint), importMap: importMap && relative(root, importMap) };
  });
}

/** Every function folder with an Edge entry point, whether or not config.toml names it. */
export function entryPointFolders(): string[] {
  return readdirSync(join(root, 'functions'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, 'functions', entry.name, 'index.ts')))
    .map((entry) => entry.name)
    .sort();
}

/** How Deno is told about a function's import map: a deno.json is a config, anything else an import map. */
export function resolutionFlags(importMap: string | undefined): string[] {
  const flags = ['--node-modules-dir=none', '--no-lock'];
  if (!importMap) return [...flags, '--no-config'];
  if (/^deno\.jsonc?$/.test(basename(importMap))) return [...flags, `--config=${importMap}`];
  return [...flags, '--no-config', `--import-map=${importMap}`];
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs deno to completion with only the given environment (plus PATH, HOME and Deno's cache settings). */
export function runDeno(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(deno, args, { cwd: options.cwd, env: denoEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

export function denoEnv(extra: Record<string, string> = {}): Record<string, string> {
  // Where packages come from and which authorities to trust for that: the machine's settings.
  const passed = ['PATH', 'HOME', 'DENO_DIR', 'DENO_CERT', 'DENO_TLS_CA_STORE', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'NODE_EXTRA_CA_CERTS', 'NPM_CONFIG_REGISTRY', 'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY'];
  const env: Record<string, string> = { NO_COLOR: '1' };
  for (const name of passed) if (process.env[name] !== undefined) env[name] = process.env[name]!;
  return { ...env, ...extra };
}

/** The project files in `entrypoint`'s module graph, as the CLI collects them (paths relative to the root). */
export async function moduleGraph(fn: DeployedFunction): Promise<string[]> {
  const run = await runDeno(['info', '--json', ...resolutionFlags(fn.importMap), fn.entrypoint], { cwd: root });
  if (run.code !== 0) throw new Error(`deno info ${fn.entrypoint} failed:\n${run.stderr}`);
  const graph = JSON.parse(run.stdout) as { modules: { specifier: string }[] };
  return graph.modules
    .filter((module) => module.specifier.startsWith('file://'))
    .map((module) => relative(root, fileURLToPath(module.specifier)));
}

/**
 * A temporary folder holding exactly what a deploy of `functions` uploads. Its path stays the same
 * for a checkout, so Deno's type-check cache serves unchanged files on the next run.
 */
export async function deployBundle(functions: DeployedFunction[]): Promise<string> {
  const folder = join(tmpdir(), `hps-deploy-${createHash('sha256').update(root).digest('hex').slice(0, 12)}`);
  await rm(folder, { recursive: true, force: true });
  const files = new Set<string>();
  for (const fn of functions) {
    for (const file of await moduleGraph(fn)) files.add(file);
    if (fn.importMap) files.add(fn.importMap);
  }
  for (const file of files) {
    if (file.startsWith('..')) throw new Error(`${file} lies outside the project`);
    await mkdir(dirname(join(folder, file)), { recursive: true });
    await copyFile(join(root, file), join(folder, file));
  }
  return folder;
}
