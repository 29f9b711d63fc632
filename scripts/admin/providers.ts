/**
 * `providers check`: each data vendor's provider asked for each operation it serves, with the
 * catalog's example input, as a run asks it (its timeout, its output through the operation's
 * schema), but with no table, no workspace and no charge. For an operator with a new key: the
 * adapters read some vendor answers in a shape their public clients read rather than one the
 * vendor documents (docs/social-operations.md), and this says at once which ones the live API
 * answers otherwise ("… is not the shape read: <field>"). Each check is one vendor call, billed
 * by the vendor. Keys and base URLs come from this process's environment (the variables of
 * docs/configuration.md); a provider without its key is skipped.
 */
import { type CommandGroup, command, UsageError } from './command.ts';

interface CheckInput {
  provider: string | undefined;
  operation: string | undefined;
  input: Record<string, unknown> | undefined;
}

type Check =
  | { operation: string; outcome: 'ok' | 'not_found'; ms: number; items?: number }
  | { operation: string; outcome: 'failed'; ms: number; error: string }
  | { operation: string; outcome: 'skipped'; reason: string };

const check = command<CheckInput>({
  name: 'check',
  summary: "call each vendor for each operation it serves and check its answer's shape (no table, no charge; the vendor bills each call)",
  noTable: true,
  options: {
    provider: {
      type: 'string',
      value: 'NAME',
      description: 'one vendor, by its SOCIAL_PROVIDER name (http, tikhub, …); default: each whose key is set',
    },
    operation: { type: 'string', value: 'NAME', description: 'one operation; default: each the provider serves' },
    input: { type: 'string', value: 'JSON', description: "with --operation: the input to send instead of the catalog's example" },
  },
  parse: (args) => {
    const raw = args.optional('input');
    const operation = args.optional('operation');
    if (raw !== undefined && operation === undefined) throw new UsageError('--input goes with --operation');
    let input: Record<string, unknown> | undefined;
    if (raw !== undefined) {
      try {
        input = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        throw new UsageError('--input must be a JSON object');
      }
      if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new UsageError('--input must be a JSON object');
    }
    return { provider: args.optional('provider'), operation, input };
  },
  run: async ({ provider, operation, input }) => {
    const [
      { VENDOR_PROVIDERS, asSocialProvider },
      { CATALOG, OPERATION_NAMES },
      { EXAMPLE_INPUTS },
      { callProvider },
      types,
      { integer, DEFAULTS },
    ] = await Promise.all([
      import('../../lib/social/providers/index.ts'),
      import('../../lib/social/catalog/index.ts'),
      import('../../lib/social/catalog/examples.ts'),
      import('../../lib/social/provider-call.ts'),
      import('../../lib/social/providers/types.ts'),
      import('../../lib/config.ts'),
    ]);
    const usage = (message: string) => new UsageError(`providers check: ${message} (providers check --help)`);
    const vendors = VENDOR_PROVIDERS;
    if (provider !== undefined && !vendors.some((descriptor) => descriptor.name === provider))
      throw usage(`--provider must be one of ${vendors.map((descriptor) => descriptor.name).join(', ')}, got "${provider}"`);
    if (operation !== undefined && !CATALOG.has(operation)) throw usage(`--operation: no operation "${operation}" in the catalog`);
    const chosen = vendors.filter(
      (descriptor) => (provider === undefined || descriptor.name === provider) && (operation === undefined || descriptor.serves(operation)),
    );
    if (chosen.length === 0) throw usage(`${provider ?? 'no provider'} does not serve ${operation}`);
    const timeoutMs = integer('PROVIDER_TIMEOUT_MS', DEFAULTS.providerTimeoutMs);

    const providers: ({ provider: string; name: string; skipped: string } | { provider: string; name: string; checks: Check[] })[] = [];
    for (const descriptor of chosen) {
      // Here the key comes from the environment only (a secret is read through Lambda's extension).
      const keyVariable = descriptor.vendor!.keyVariable;
      if (!process.env[keyVariable]) {
        providers.push({ provider: descriptor.name, name: descriptor.displayName, skipped: `no key: set ${keyVariable} to check it` });
        continue;
      }
      const settings = descriptor.settings();
      const social = asSocialProvider(descriptor, settings);
      const operations = OPERATION_NAMES.filter((name) => descriptor.serves(name) && (operation === undefined || name === operation));
      const checks: Check[] = [];
      for (const name of operations) {
        const definition = CATALOG.get(name)!;
        const body = input ?? descriptor.checkInputs?.[name] ?? EXAMPLE_INPUTS[name] ?? {};
        const parsed = definition.input.safeParse(body);
        if (!parsed.success) throw usage(`--input is not a valid input of ${name}: ${parsed.error.issues[0]?.message ?? ''}`);
        const startedAt = performance.now();
        const ms = () => Math.round(performance.now() - startedAt);
        try {
          const output = (await callProvider(social, definition, parsed.data as Record<string, unknown>, timeoutMs)) as {
            items?: unknown[];
          };
          checks.push({ operation: name, outcome: 'ok', ms: ms(), ...(Array.isArray(output.items) ? { items: output.items.length } : {}) });
        } catch (error) {
          if (error instanceof types.UpstreamNotFoundError) checks.push({ operation: name, outcome: 'not_found', ms: ms() });
          else if (error instanceof types.UpstreamError && error.detail.code === 'unsupported_input')
            checks.push({ operation: name, outcome: 'skipped', reason: `${error.message} (check it with --operation ${name} --input)` });
          else checks.push({ operation: name, outcome: 'failed', ms: ms(), error: (error as Error).message });
        }
      }
      providers.push({ provider: descriptor.name, name: descriptor.displayName, checks });
    }
    const all: Check[] = providers.flatMap((entry) => ('checks' in entry ? entry.checks : []));
    const count = (outcome: Check['outcome']) => all.filter((entry) => entry.outcome === outcome).length;
    const summary = { ok: count('ok'), not_found: count('not_found'), failed: count('failed'), skipped: count('skipped') };
    return { ok: summary.failed === 0 && all.length > 0, summary, providers };
  },
  // A failed check (or nothing checked) exits 1 after the report: a script sees it without reading it.
  failed: (result) => (result as { ok: boolean }).ok === false,
});

export const group: CommandGroup = { name: 'providers', commands: [check] };
