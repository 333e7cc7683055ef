// Settings come from environment variables on both runtimes (Deno on the Edge, Node locally).
// Every setting has a production-safe default; see the README's settings table.

type EnvReader = (name: string) => string | undefined;

const readEnv: EnvReader = (name) => {
  const deno = (globalThis as { Deno?: { env: { get(n: string): string | undefined } } }).Deno;
  if (deno) return deno.env.get(name);
  return (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env[name];
};

export function setting(name: string, fallback: string): string {
  const value = readEnv(name);
  return value === undefined || value === '' ? fallback : value;
}

export function intSetting(name: string, fallback: number): number {
  const value = Number(setting(name, String(fallback)));
  if (!Number.isFinite(value)) throw new Error(`Setting ${name} must be a number`);
  return value;
}

export function boolSetting(name: string, fallback: boolean): boolean {
  return setting(name, String(fallback)).toLowerCase() === 'true';
}

export const config = {
  /** DATABASE_URL, else the URL Supabase gives every edge function. */
  databaseUrl: () => readEnv('DATABASE_URL') || readEnv('SUPABASE_DB_URL'),
  dbPoolSize: () => intSetting('DB_POOL_SIZE', 10),
  logLevel: () => setting('LOG_LEVEL', 'info'),
  /** Public address of the pay-in-app web application (used in placement links). */
  payInAppBaseUrl: () => setting('PAY_IN_APP_BASE_URL', 'https://pay.housing-placement.example'),
};
