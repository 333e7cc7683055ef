// Every curl example of the guides, run against the server in guide order, as an integrator pasting
// them would: each guide gets the organisations, keys and resources its examples name (a request,
// a home, a booked stay), the literal example identifiers are bound to real ones as the examples
// create them, and dates are moved forward by the days since the guides were written, so the
// examples keep meaning the same stay. An example whose call the API refuses as malformed (no such
// endpoint, a method it does not take, JSON it cannot read, a field it does not know, a key of the
// wrong kind, any invalid value) or answers with a 5xx fails, naming the guide and line; a refusal that comes from the
// state the guide walks through (a 409, say, for the alternative it shows next) is allowed. The
// journeys then end where the guides say they end.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { call, consoleCommand, ownerSql, type ApiResponse } from '../helpers.ts';
import { carrier, claimBody, inDays, insertHome, pdfBytes, provider, sourced } from '../claims/fixtures.ts';
import { createTenant } from '../helpers.ts';
import { drainJobs } from '../placements/fixtures.ts';

/** The day the guides' example dates were written for; they move forward with the calendar (times of day, such as a clock's, with them). */
const writtenOn = '2026-11-25';
const shiftDays = Math.max(0, Math.round((Date.parse(inDays(0)) - Date.parse(writtenOn)) / 86_400_000));
const shiftDates = (text: string) =>
  shiftDays === 0 ? text : text.replace(/\b(20\d\d-\d\d-\d\d)(?=\b|T\d)/g, (date) => new Date(Date.parse(`${date}T00:00:00Z`) + shiftDays * 86_400_000).toISOString().slice(0, 10));

const base = 'http://127.0.0.1:54321/functions/v1';

interface Example {
  line: number;
  command: string;
}

/** The curl commands of a guide's shell blocks, continued lines joined, with their line numbers. */
function curlExamples(file: string): Example[] {
  const lines = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8').split('\n');
  const examples: Example[] = [];
  let inShell = false;
  for (let i = 0; i < lines.length; i++) {
    if (/^```/.test(lines[i])) {
      inShell = !inShell && /^```(sh|bash|shell)\b/.test(lines[i]);
      continue;
    }
    if (!inShell || !/^\s*curl\s/.test(lines[i])) continue;
    let command = lines[i];
    // Continued lines (a trailing backslash), and a quoted body that runs over several lines.
    while ((command.endsWith('\\') || !quotesClosed(command)) && i + 1 < lines.length) {
      command = command.endsWith('\\') ? `${command.slice(0, -1)} ${lines[++i].trim()}` : `${command}\n${lines[++i]}`;
    }
    examples.push({ line: i + 1, command: command.trim() });
  }
  return examples;
}

/** Whether every quote of a shell command is closed. */
function quotesClosed(command: string): boolean {
  let quote: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i];
    if (quote === null && (ch === "'" || ch === '"')) quote = ch;
    else if (quote === '"' && ch === '\\') i++;
    else if (ch === quote) quote = null;
  }
  return quote === null;
}

/** The words of a shell command as the shell would pass them (quotes, $VAR and ${VAR}), up to a pipe or comment. */
function shellWords(command: string, vars: Record<string, string>): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  const variable = (at: number): [string, number] => {
    const m = /^\$(?:\{(\w+)\}|(\w+))/.exec(command.slice(at));
    if (!m) return ['$', 1];
    const name = m[1] ?? m[2];
    if (!(name in vars)) throw new Error(`the example uses $${name}, which the test does not bind`);
    return [vars[name], m[0].length];
  };
  for (let i = 0; i < command.length;) {
    const ch = command[i];
    if (ch === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) throw new Error(`an unclosed quote: ${command}`);
      word += command.slice(i + 1, end);
      i = end + 1;
      inWord = true;
    } else if (ch === '"') {
      for (i++; i < command.length && command[i] !== '"'; ) {
        if (command[i] === '\\' && '"\\$`'.includes(command[i + 1])) {
          word += command[i + 1];
          i += 2;
        } else if (command[i] === '$') {
          const [value, length] = variable(i);
          word += value;
          i += length;
        } else {
          word += command[i++];
        }
      }
      i++;
      inWord = true;
    } else if (ch === '$') {
      const [value, length] = variable(i);
      word += value;
      i += length;
      inWord = true;
    } else if (ch === ' ' || ch === '\t' || ch === '\n') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i++;
    } else if (!inWord && (ch === '|' || ch === '#' || ch === '>')) {
      break;
    } else {
      word += ch === '\\' ? command[++i] : ch;
      i++;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

interface Request {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | FormData;
}

/** The HTTP request a curl command makes. */
function requestOf(words: string[]): Request {
  const headers: Record<string, string> = {};
  let method: string | undefined;
  let url: string | undefined;
  let data: string | undefined;
  let form: FormData | undefined;
  for (let i = 1; i < words.length; i++) {
    const word = words[i];
    if (word === '-X' || word === '--request') method = words[++i];
    else if (word === '-H' || word === '--header') {
      const [name, ...value] = words[++i].split(':');
      headers[name.trim().toLowerCase()] = value.join(':').trim();
    } else if (word === '-d' || word === '--data' || word === '--data-raw') data = words[++i];
    else if (word === '-F' || word === '--form') {
      form ??= new FormData();
      const [name, ...rest] = words[++i].split('=');
      const value = rest.join('=');
      if (value.startsWith('@')) form.set(name, new Blob([pdfBytes.slice()]), value.slice(1));
      else form.set(name, value);
    } else if (word === '-o' || word === '--output') i++;
    else if (word.startsWith('-')) continue;
    else url = word;
  }
  if (!url?.startsWith(base)) throw new Error(`not a call to the API: ${url}`);
  return { method: method ?? (data !== undefined || form ? 'POST' : 'GET'), path: url.slice(base.length), headers, body: form ?? data };
}

/** Why an answer means the example itself is wrong, or null when the API took it as a well-formed call. */
function malformed(res: ApiResponse): string | null {
  const error = (res.body as { error?: { code?: string; message?: string } } | undefined)?.error;
  if (res.status >= 500) return `${res.status} ${res.text}`;
  if ([401, 403, 405, 413, 415].includes(res.status)) return `${res.status} ${error?.code}: ${error?.message}`;
  if (res.status === 400 && error?.code === 'invalid_json') return `400 invalid_json: ${error.message}`;
  if (res.status === 404 && /^No endpoint/.test(error?.message ?? '')) return `404: ${error?.message}`;
  // The examples' input is valid input: every 422 (an unknown or missing field, a bad value, a date
  // in the past) means the example went stale.
  if (res.status === 422) return `422 ${error?.code}: ${error?.message}`;
  return null;
}

interface Guide {
  vars: Record<string, string>;
  /** Literal example identifiers in the guide's text and the real ones they stand for. */
  literals: Record<string, string>;
  /** After each answer: bind what it created. */
  learn?: (request: Request, res: ApiResponse, guide: Guide) => void;
  orgs: string[];
}

/** Runs a guide's examples in order; returns each example's answer. */
async function run(file: string, guide: Guide) {
  const answers: { example: Example; request: Request; res: ApiResponse }[] = [];
  for (const example of curlExamples(file)) {
    let command = shiftDates(example.command);
    for (const [literal, real] of Object.entries(guide.literals)) command = command.split(literal).join(real);
    const request = requestOf(shellWords(command, guide.vars));
    const res = await call(request.method, request.path, { headers: request.headers, body: request.body });
    expect(malformed(res), `${file}:${example.line} ${request.method} ${request.path}`).toBeNull();
    guide.learn?.(request, res, guide);
    // Work the call queued (a contract to send) runs before the next example, as within seconds.
    await drainJobs(...guide.orgs);
    answers.push({ example, request, res });
  }
  expect(answers.length, file).toBeGreaterThan(0);
  return answers;
}

/** A sandbox carrier's request (with household and adjuster addresses, sourced) and a provider's home for it. */
async function sandboxRequestWithHome() {
  const c = await carrier();
  const home = await insertHome(await provider());
  const created = await c.sandboxApi.post('/claims', claimBody({ household_email: 'family@example.com', adjuster_email: 'adjuster@example.com' }));
  await sourced(created.body.data.id);
  return { c, home, requestId: created.body.data.id as string, ref: created.body.data.claim_ref as string };
}

const data = (res: ApiResponse) => (res.body as { data?: Record<string, any> }).data ?? {};

describe("the guides' curl examples, run", () => {
  it('docs/claims.md: opens a request, lists, amends, matches, sources more and uploads a document', async () => {
    const c = await carrier();
    // The operator assigns the organisation a coordinator (README, operator console), as sourcing more needs.
    await consoleCommand('coordinator', 'assign', '--org', c.orgId, '--email', 'pat.coordinator@service.example');
    const answers = await run('docs/claims.md', {
      vars: { BASE: base, KEY: c.live },
      literals: {},
      orgs: [c.orgId],
      learn: (request, res, guide) => {
        if (request.method === 'POST' && request.path === '/claims' && res.status === 201) guide.literals['REQ-7KQ2MX'] = data(res).claim_ref;
      },
    });
    expect(answers.map((a) => [a.res.status, a.res.text.slice(0, 160)])).toEqual([201, 200, 200, 200, 202, 201].map((status) => [status, expect.any(String)]));
  });

  it('docs/properties.md: publishes a home, changes it, blocks and releases dates, syncs a calendar, plays the processor', async () => {
    const p = await createTenant('provider');
    const answers = await run('docs/properties.md', {
      vars: { BASE: base, KEY: p.live, SANDBOX_KEY: p.sandbox, BLOCK_ID: '', FEED_ID: '' },
      literals: {},
      orgs: [p.orgId],
      learn: (request, res, guide) => {
        if (request.method === 'POST' && /^\/properties\/[^/]+\/availability$/.test(request.path) && res.status === 201) guide.vars.BLOCK_ID = data(res).id;
        if (request.method === 'POST' && /^\/properties\/[^/]+\/calendar-feeds$/.test(request.path) && res.status === 201) guide.vars.FEED_ID = data(res).id;
      },
    });
    expect(answers.every((a) => a.res.status < 300), JSON.stringify(answers.map((a) => [a.example.line, a.res.status]))).toBe(true);
  });

  it('docs/webhooks.md: simulates an event', async () => {
    const c = await carrier();
    const [simulated] = await run('docs/webhooks.md', { vars: { BASE: base, SANDBOX_KEY: c.sandbox }, literals: {}, orgs: [c.orgId] });
    expect(simulated.res.status).toBe(202);
  });

  it('docs/placements.md: the journey ends with a signed lease, paid, moved in, then cancelled and refunded', async () => {
    const { c, home, requestId, ref } = await sandboxRequestWithHome();
    const answers = await run('docs/placements.md', { vars: { API: base, KEY: c.sandbox, REF: ref, HOME: home }, literals: {}, orgs: [c.orgId] });
    const at = (path: RegExp) => answers.filter((a) => path.test(a.request.path)).map((a) => a.res.status);
    expect(at(/\/dates$/)[0]).toBe(200);
    expect(at(/\/payment$/)[0]).toBe(200);
    expect(at(/\/confirm-move-in$/)[0]).toBe(200);
    const [placement] = await ownerSql()`select option_status from app.claim_options where claim_id = ${requestId}`;
    expect(placement.option_status).toBe('cancelled');
  });

  it('README.md: the first call opens a request and lists it', async () => {
    const c = await carrier();
    const answers = await run('README.md', { vars: { API: base, KEY: c.sandbox }, literals: {}, orgs: [c.orgId] });
    expect(answers.map((a) => a.res.status), JSON.stringify(answers.map((a) => [a.example.line, a.res.status, a.res.text.slice(0, 200)]))).toEqual([201, 200]);
    expect((answers[1].res.body as { data: { claim_ref: string }[] }).data.map((r) => r.claim_ref)).toEqual([data(answers[0].res).claim_ref]);
  });

  it('docs/stay-over-time.md: a stay walked on the sandbox clock, extended, and closed out', async () => {
    const { c, home, requestId, ref } = await sandboxRequestWithHome();
    // The stay the walk-through books "as in the guide": from its move-in day to three months on.
    await c.sandboxApi.post(`/claims/${ref}/options`, { property_id: home, action: 'place', approve_budget: true });
    await c.sandboxApi.post(`/claims/${ref}/dates`, { property_id: home, move_in: shiftDates('2027-01-04'), move_out: shiftDates('2027-04-04') });
    await drainJobs(c.orgId);
    for (const who of ['household', 'landlord']) await c.sandboxApi.post(`/sandbox/claims/${ref}/homes/${home}/${who}`, { action: 'sign' });
    expect((await c.sandboxApi.post(`/sandbox/claims/${ref}/homes/${home}/payment`, { outcome: 'succeeded' })).status).toBe(200);
    const answers = await run('docs/stay-over-time.md', { vars: { API: base, KEY: c.sandbox, REF: ref, HOME: home }, literals: {}, orgs: [c.orgId] });
    expect(answers.every((a) => a.res.status < 300), JSON.stringify(answers.map((a) => [a.example.line, a.res.status, a.res.text.slice(0, 200)]))).toBe(true);
    const [booking] = await ownerSql()`select booking_status, check_out from app.bookings where claim_id = ${requestId}`;
    expect(booking).toEqual({ booking_status: 'completed', check_out: shiftDates('2027-05-04') });
  });
});
