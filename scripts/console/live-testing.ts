import { boolSetting, config } from '../../shared/config.ts';
import { ConsoleError, uuidOption, type Command, type Options } from './options.ts';

// Stand-ins an operator uses to try a live deployment locally, where no payment processor finishes a
// provider's payout setup (the setup page needs STRIPE_SECRET_KEY and a public address the processor
// returns to). Only with LOCAL_LIVE_TESTING=true, and never with a live-mode processor key: those are
// production settings, where an account is connected only by the processor's own report.

/** Why the settings forbid live stand-ins, or undefined when they allow them. */
export function liveStandInsRefusal(): string | undefined {
  if (!boolSetting('LOCAL_LIVE_TESTING', false)) return 'live stand-ins are for local live testing only: set LOCAL_LIVE_TESTING=true on a deployment that is not in production';
  if (config.liveModeProcessor()) return 'STRIPE_SECRET_KEY is a live-mode key (production): only the payment processor connects a live payout account';
  return undefined;
}

function flag(options: Options, name: string): boolean {
  const value = options[name] ?? 'true';
  if (value !== 'true' && value !== 'false') throw new ConsoleError('invalid_option', `--${name} must be true or false`);
  return value === 'true';
}

export const liveTestingCommands: Record<string, Command> = {
  'payout connect': {
    usage: 'payout connect --org ORG_ID [--charges-enabled true|false] [--payouts-enabled true|false]',
    summary: 'Local live testing only (LOCAL_LIVE_TESTING=true, no live-mode STRIPE_SECRET_KEY): marks a provider\'s live payout account connected, as the processor would report after setup.',
    async run(sql, options) {
      const orgId = uuidOption(options, 'org');
      const charges = flag(options, 'charges-enabled');
      const payouts = flag(options, 'payouts-enabled');
      const refusal = liveStandInsRefusal();
      if (refusal) throw new ConsoleError('production_settings', refusal);
      const [org] = await sql<{ side: string }[]>`select side from app.organisations where id = ${orgId}`;
      if (!org) throw new ConsoleError('not_found', `no organisation ${orgId}`);
      if (org.side !== 'provider') throw new ConsoleError('invalid_option', '--org must be a provider organisation');
      // The same account row the processor's account.updated writes; the test bank account ends 6789.
      const [row] = await sql`
        insert into app.payout_accounts (org_id, environment, connected, charges_enabled, payouts_enabled, onboarding_status, bank_account_last4)
        values (${orgId}, 'live', true, ${charges}, ${payouts}, ${charges && payouts ? 'complete' : 'pending'}, ${payouts ? '6789' : null})
        on conflict (org_id, environment) do update set
          connected = true, charges_enabled = excluded.charges_enabled, payouts_enabled = excluded.payouts_enabled,
          onboarding_status = excluded.onboarding_status, bank_account_last4 = coalesce(app.payout_accounts.bank_account_last4, excluded.bank_account_last4),
          updated_at = clock_timestamp()
        returning org_id, environment, connected, charges_enabled, payouts_enabled, onboarding_status, bank_account_last4, updated_at`;
      return { data: row };
    },
  },
};
