/**
 * Test mode for failover (docs/social-operations.md, "Test mode"): SOCIAL_TEST_FAULTS makes a
 * named provider fail for one operation (`x_profile=http`) or for one input (`x_profile=http@nasa`:
 * the run whose input holds "nasa"), as a provider answering 503 does, without calling it. For a
 * local or trial stack, never set in production: the stack refuses it unless
 * SOCIAL_TEST_MODE=true (infra/README and docs/deployment.md). The sample providers also fail on
 * the word `<provider>_down` in an input (lib/social/providers/sample.ts).
 */
import { optional } from '../config.ts';
import { type SocialProvider, UpstreamError } from './providers/types.ts';

interface Fault {
  operation: string;
  provider: string;
  /** Only inputs holding this text; undefined: every input. */
  input: string | undefined;
}

let faults: Fault[] | undefined;

function configured(): Fault[] {
  if (!faults) {
    const text = optional('SOCIAL_TEST_FAULTS');
    if (text && optional('SOCIAL_TEST_MODE') !== 'true')
      throw new Error('SOCIAL_TEST_FAULTS is a test switch: it needs SOCIAL_TEST_MODE=true');
    faults = (text ?? '')
      .split(/[;\s]+/)
      .filter(Boolean)
      .map((entry) => {
        const match = /^([a-z0-9_*]+)=([a-z0-9_]+)(?:@(.+))?$/.exec(entry);
        if (!match) throw new Error(`SOCIAL_TEST_FAULTS entries must be <operation|*>=<provider>[@<input text>], got "${entry}"`);
        return { operation: match[1] as string, provider: match[2] as string, input: match[3] };
      });
  }
  return faults;
}

/** For tests: read SOCIAL_TEST_FAULTS again. */
export const resetTestFaults = (): void => {
  faults = undefined;
};

const holds = (value: unknown, text: string): boolean =>
  typeof value === 'string'
    ? value.includes(text)
    : Array.isArray(value)
      ? value.some((item) => holds(item, text))
      : value !== null && typeof value === 'object' && Object.values(value).some((item) => holds(item, text));

/** A stand-in that fails as the provider would, when a fault names this run; undefined otherwise. */
export function testFault(operation: string, provider: string, input: unknown): SocialProvider | undefined {
  const fault = configured().find(
    (candidate) =>
      (candidate.operation === '*' || candidate.operation === operation) &&
      candidate.provider === provider &&
      (candidate.input === undefined || holds(input, candidate.input)),
  );
  if (!fault) return undefined;
  return {
    name: provider,
    displayName: provider,
    sampleData: false,
    serves: () => true,
    run: async () => {
      throw new UpstreamError(`${provider} answered HTTP 503 (test mode: SOCIAL_TEST_FAULTS)`, { status: 503 });
    },
  };
}
