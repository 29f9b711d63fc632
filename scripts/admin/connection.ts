/**
 * Which table a command talks to: the local stack's (from .local/dev.json) unless --table names
 * another. Points this process's configuration at it; lib/ reads it on first use, so commands
 * import their lib/ modules after this.
 */
import { existsSync, readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import type { AuditSource } from '../../lib/db/audit-events.ts';
import { assertLocalStackRunning } from '../../lib/local/stack-state.ts';
import { type DevInfo, type Target, UsageError } from './command.ts';

/** Options every command takes. */
export const CONNECTION_OPTIONS = {
  table: { type: 'string', value: 'NAME', description: "a deployed table (the stack's TableName output)" },
  region: { type: 'string', value: 'REGION', description: "the table's region (or AWS_REGION)" },
  endpoint: { type: 'string', value: 'URL', description: 'a DynamoDB endpoint other than the regional one (DynamoDB Local)' },
} as const;

const isLoopback = (endpoint: string | undefined) => {
  if (!endpoint) return false;
  const { hostname } = new URL(endpoint);
  return hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]';
};

function readDevInfo(): DevInfo | null {
  const file = resolve('.local/dev.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DevInfo) : null;
}

export async function connect(flags: { table?: string; region?: string; endpoint?: string }): Promise<Target> {
  const { table, region, endpoint } = flags;
  // An endpoint alone would silently mean the local stack's table on another database.
  if (endpoint && !table) throw new UsageError('--endpoint needs --table: name the table on that endpoint');
  if (table) {
    process.env.TABLE_NAME = table;
    if (region) process.env.AWS_REGION = region;
    // A real table in a guessed region would be the wrong table (or none): ask rather than guess.
    if (!isLoopback(endpoint) && !process.env.AWS_REGION && !process.env.AWS_DEFAULT_REGION) {
      throw new UsageError('--region is required with --table (or set AWS_REGION)');
    }
    if (endpoint) process.env.DYNAMODB_ENDPOINT = endpoint;
    if (isLoopback(endpoint)) await useLocalTable(endpoint!, table);
    const local = isLoopback(endpoint);
    return { local, dev: readDevInfo(), operator: operatorOf(local) };
  }
  const dev = readDevInfo();
  if (!dev) throw new UsageError('no local stack found (.local/dev.json): start one with `npm start`, or pass --table');
  // Its DynamoDB Local may still answer for a moment after its server died: never write to an orphan.
  assertLocalStackRunning(dev);
  await useLocalTable(dev.dynamodbEndpoint, dev.tableName);
  return { local: true, dev, operator: operatorOf(true) };
}

/**
 * The operator of a command, asked once: against a deployed table, the ARN of the AWS principal
 * whose credentials the command uses (sts:GetCallerIdentity, which needs no permission); against
 * a local one, the OS user name. A principal that cannot be told changes nothing (exit 3).
 */
function operatorOf(local: boolean): () => Promise<AuditSource> {
  let asked: Promise<AuditSource> | undefined;
  return () => {
    asked ??= (async () => {
      const { operatorSource } = await import('../../lib/db/audit-events.ts');
      if (local) return operatorSource(userInfo().username);
      const { GetCallerIdentityCommand, STSClient } = await import('@aws-sdk/client-sts');
      const { Arn } = await new STSClient({}).send(new GetCallerIdentityCommand({}));
      if (!Arn) throw new Error('sts:GetCallerIdentity named no principal: nothing was changed');
      return operatorSource(Arn);
    })();
    return asked;
  };
}

async function useLocalTable(endpoint: string, tableName: string): Promise<void> {
  (await import('../local-env.ts')).useLocalTable(endpoint, tableName);
}
