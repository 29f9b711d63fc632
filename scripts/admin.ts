/**
 * Admin CLI: `npm run --silent admin -- <command>`. Works against the local stack (reads
 * .local/dev.json) or a real table (--table, --region, --endpoint). Each command prints one JSON
 * document on stdout. Bad usage exits 2; a refused operation (no such org, slug taken) exits 1.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CHARGES_USAGE, chargesCommand, isChargesCommand } from './admin-charges.ts';
import { useLocalTable } from './local-env.ts';

class UsageError extends Error {}

const USAGE = `usage: npm run --silent admin -- <command> [options] [--table T --region R --endpoint URL]

  org create --id org_… [--name N] [--credits N] [--networks instagram,x,…] [--spending-limit N]
  org set-networks --org ID --networks a,b
  member add --org ID --user ID --role viewer|editor|owner [--spending-limit N]
  member set-spending-limit --org ID --user ID --limit N|none
  credits grant --org ID --amount N
  token --user ID [--ttl SECONDS]                      (local stack only)
  create asset|skill|conversation|project --org ID --by USER [--visibility V] [--project ID]
         [--slug S] [--name N] [--title T] [--source custom|built-in|community]
  delete asset|skill|conversation|project ID --by USER [--at ISO-8601]
  archive project ID --by USER
  get asset|skill|conversation|project ID
${CHARGES_USAGE}`;

const OPTIONS = {
  id: { type: 'string' },
  name: { type: 'string' },
  credits: { type: 'string' },
  networks: { type: 'string' },
  'spending-limit': { type: 'string' },
  org: { type: 'string' },
  user: { type: 'string' },
  role: { type: 'string' },
  amount: { type: 'string' },
  limit: { type: 'string' },
  ttl: { type: 'string' },
  by: { type: 'string' },
  visibility: { type: 'string' },
  project: { type: 'string' },
  slug: { type: 'string' },
  title: { type: 'string' },
  source: { type: 'string' },
  at: { type: 'string' },
  table: { type: 'string' },
  region: { type: 'string' },
  endpoint: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Flags = Partial<Record<keyof typeof OPTIONS, string | boolean>>;

function need(flags: Flags, name: keyof typeof OPTIONS): string {
  const value = flags[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function optional(flags: Flags, name: keyof typeof OPTIONS): string | undefined {
  const value = flags[name];
  return typeof value === 'string' ? value : undefined;
}

function integer(flags: Flags, name: keyof typeof OPTIONS, { min = 0 } = {}): number | undefined {
  const raw = optional(flags, name);
  if (raw === undefined) return undefined;
  if (!/^-?[0-9]+$/.test(raw) || Number(raw) < min) throw new UsageError(`--${name} must be an integer >= ${min}`);
  return Number(raw);
}

function instant(flags: Flags, name: keyof typeof OPTIONS): Date | undefined {
  const raw = optional(flags, name);
  if (raw !== undefined && Number.isNaN(Date.parse(raw))) throw new UsageError(`--${name} must be an ISO 8601 date-time`);
  return raw === undefined ? undefined : new Date(raw);
}

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], what: string): T {
  if (!value || !(allowed as readonly string[]).includes(value)) throw new UsageError(`${what} must be one of ${allowed.join(', ')}`);
  return value as T;
}

const isLoopback = (endpoint: string | undefined) => {
  if (!endpoint) return false;
  const { hostname } = new URL(endpoint);
  return hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]';
};

interface DevInfo {
  dynamodbEndpoint: string;
  tableName: string;
  signingKeyFile: string;
  issuer: string;
  audience: string;
}

function readDevInfo(): DevInfo | null {
  const file = resolve('.local/dev.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DevInfo) : null;
}

/** Points the data layer at the chosen table; returns whether it is the local stack's. */
function connect(flags: Flags): { local: boolean; dev: DevInfo | null } {
  const table = optional(flags, 'table');
  const endpoint = optional(flags, 'endpoint');
  if (table) {
    process.env.TABLE_NAME = table;
    if (optional(flags, 'region')) process.env.AWS_REGION = optional(flags, 'region');
    // A real table in a guessed region would be the wrong table (or none): ask rather than guess.
    if (!isLoopback(endpoint) && !process.env.AWS_REGION && !process.env.AWS_DEFAULT_REGION) {
      throw new UsageError('--region is required with --table (or set AWS_REGION)');
    }
    if (endpoint) process.env.DYNAMODB_ENDPOINT = endpoint;
    if (isLoopback(endpoint)) useLocalTable(endpoint!, table);
    return { local: isLoopback(endpoint), dev: readDevInfo() };
  }
  const dev = readDevInfo();
  if (!dev) throw new UsageError('no local stack found (.local/dev.json): start one with `npm start`, or pass --table');
  useLocalTable(dev.dynamodbEndpoint, dev.tableName);
  return { local: true, dev };
}

/** `--ttl -5` reads as a value, not as an option named "-5" (node's parseArgs refuses it). */
const joinNegativeValues = (argv: string[]) =>
  argv.flatMap((arg, i) =>
    /^-[0-9]/.test(argv[i + 1] ?? '') && arg.startsWith('--') && !arg.includes('=')
      ? [`${arg}=${argv[i + 1]}`]
      : /^-[0-9]/.test(arg) && argv[i - 1]?.startsWith('--')
        ? []
        : [arg],
  );

async function run(argv: string[]): Promise<unknown> {
  const { values: flags, positionals } = parseArgs({
    args: joinNegativeValues(argv),
    options: OPTIONS,
    allowPositionals: true,
    strict: true,
  });
  if (flags.help || positionals.length === 0) throw new UsageError('');
  const [command, sub, id] = positionals;
  const { local, dev } = connect(flags);

  // Imported after connect(): the data layer reads its configuration on first use.
  const orgs = await import('../lib/db/organizations.ts');
  const members = await import('../lib/db/memberships.ts');
  const resources = await import('../lib/db/resources.ts');
  const model = await import('../lib/resources/model.ts');
  const vocabulary = await import('../lib/model.ts');
  const { buildResource } = await import('../lib/resources/factory.ts');

  const networks = (raw: string) => raw.split(',').map((network) => oneOf(network.trim(), vocabulary.NETWORKS, `network "${network}"`));
  const kind = () => oneOf(sub, vocabulary.RESOURCE_KINDS, 'resource kind');
  const resourceId = () => {
    if (!id) throw new UsageError('a resource id is required');
    return id;
  };
  const present = (k: (typeof vocabulary.RESOURCE_KINDS)[number], record: Parameters<typeof model.presentResource>[1]) =>
    model.presentResource(k, record, 'owner');

  switch (`${command} ${sub ?? ''}`.trim()) {
    case 'org create': {
      const orgId = need(flags, 'id');
      if (!/^org_[A-Za-z0-9_-]{1,64}$/.test(orgId)) throw new UsageError('--id must look like org_<letters, digits, _ or ->');
      return orgs.createOrganization({
        id: orgId,
        name: optional(flags, 'name'),
        credits: integer(flags, 'credits'),
        networks: optional(flags, 'networks') !== undefined ? networks(need(flags, 'networks')) : undefined,
        spendingLimit: integer(flags, 'spending-limit') ?? null,
      });
    }
    case 'org set-networks':
      return orgs.setNetworks(need(flags, 'org'), networks(need(flags, 'networks')));
    case 'member add':
      return members.putMembership({
        orgId: need(flags, 'org'),
        userId: need(flags, 'user'),
        role: oneOf(optional(flags, 'role'), vocabulary.ROLES, '--role'),
        spendingLimit: integer(flags, 'spending-limit') ?? null,
      });
    case 'member set-spending-limit': {
      const raw = need(flags, 'limit');
      const limit = raw === 'none' ? null : integer(flags, 'limit')!;
      const updated = await members.setMemberSpendingLimit(need(flags, 'org'), need(flags, 'user'), limit);
      if (!updated) throw new Error(`${need(flags, 'user')} is not a member of ${need(flags, 'org')}`);
      return updated;
    }
    case 'credits grant': {
      const amount = integer(flags, 'amount', { min: 1 });
      if (amount === undefined) throw new UsageError('--amount is required');
      return orgs.grantCredits(need(flags, 'org'), amount);
    }
    case 'token': {
      if (!local || !dev) throw new UsageError('token signs with the local dev key and refuses to run against a non-local table');
      const { signToken } = await import('../lib/local/signing-key.ts');
      const key = JSON.parse(readFileSync(dev.signingKeyFile, 'utf8'));
      const ttl = optional(flags, 'ttl');
      if (ttl !== undefined && !/^-?[0-9]+$/.test(ttl)) throw new UsageError('--ttl must be an integer number of seconds');
      return {
        token: signToken(key, {
          sub: need(flags, 'user'),
          issuer: dev.issuer,
          audience: dev.audience,
          ttlSeconds: ttl === undefined ? 3600 : Number(ttl),
        }),
      };
    }
    case `create ${sub}`: {
      const k = kind();
      const record = buildResource(k, {
        orgId: need(flags, 'org'),
        by: need(flags, 'by'),
        visibility: optional(flags, 'visibility') ? oneOf(optional(flags, 'visibility'), model.VISIBILITIES, '--visibility') : undefined,
        projectId: optional(flags, 'project'),
        slug: optional(flags, 'slug'),
        name: optional(flags, 'name'),
        title: optional(flags, 'title'),
        source: optional(flags, 'source') ? oneOf(optional(flags, 'source'), model.SKILL_SOURCES, '--source') : undefined,
      });
      if (!(await orgs.getOrganization(need(flags, 'org')))) throw new Error(`organization ${need(flags, 'org')} does not exist`);
      return present(k, await resources.createResource(k, record));
    }
    case `delete ${sub}`: {
      const k = kind();
      return present(k, await resources.softDeleteResource(k, resourceId(), need(flags, 'by'), instant(flags, 'at') ?? new Date()));
    }
    case 'archive project':
      return present('project', await resources.archiveProject(resourceId(), need(flags, 'by')));
    case `get ${sub}`: {
      const k = kind();
      const record = await resources.getResource(k, resourceId());
      if (!record) throw new Error(`${k} ${resourceId()} does not exist`);
      return present(k, record);
    }
    case `charges ${sub}`:
      if (!isChargesCommand(sub)) throw new UsageError(`unknown command "${positionals.join(' ')}"`);
      return chargesCommand(sub, { orgId: optional(flags, 'org'), now: instant(flags, 'at') });
    default:
      throw new UsageError(`unknown command "${positionals.join(' ')}"`);
  }
}

run(process.argv.slice(2))
  .then((result) => {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  })
  .catch((error: unknown) => {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${(error as Error).message ? `${(error as Error).message}\n\n` : ''}${USAGE}\n`);
      process.exit(2);
    }
    process.stderr.write(`${(error as Error).message ?? String(error)}\n`);
    process.exit(1);
  });
