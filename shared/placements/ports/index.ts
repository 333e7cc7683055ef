import type { Environment } from '../../db/tenant.ts';
import { sandboxEmail, sandboxESignature } from './sandbox.ts';
import type { EmailPort, ESignaturePort } from './types.ts';

// Which adapter serves an environment. Sandbox always gets the sandbox adapters, whatever is
// configured, so a sandbox key can never reach a real party.

export interface PlacementPorts {
  esign: ESignaturePort;
  email: EmailPort;
}

export function placementPorts(environment: Environment): PlacementPorts {
  if (environment === 'sandbox') return { esign: sandboxESignature, email: sandboxEmail };
  throw new Error('The live e-signature and email adapters are not configured');
}
