/**
 * What an admin command is, and how its arguments are read. A command checks every input in
 * `parse` (pure: a UsageError before anything is read or written), then `run` does the work by
 * calling lib/ and returns the JSON document to print. Group modules import lib/ inside `run`,
 * so that `--help` and bad usage load no SDK and a command loads only what it uses.
 */

import type { AuditSource } from '../../lib/db/audit-events.ts';
import { ORGANIZATION_ID_PATTERN } from '../../lib/model.ts';

/** Bad usage: exit 2 with a one-line message. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** For --help: `--amount N   credits to take off the balance`. */
  value?: string;
  description: string;
  /** For --help only (`parse` is what enforces it). */
  required?: boolean;
}

/** What a command runs against: a table (local or deployed), or the local stack's signing key too. */
export interface Target {
  /** The table is DynamoDB Local (the local stack's, or a loopback --endpoint). */
  local: boolean;
  /** The local stack's description (.local/dev.json), when there is one. */
  dev: DevInfo | null;
  /**
   * Who runs the command, for the audit events of its changes (docs/audit.md): the AWS principal's
   * ARN (sts:GetCallerIdentity) against a deployed table, the OS user name against a local one.
   * Asked once, by the commands that change something.
   */
  operator(): Promise<AuditSource>;
}

export interface DevInfo {
  /** The local server (its SQS endpoint takes what is sent to the stack's queues). */
  baseUrl?: string;
  dynamodbEndpoint: string;
  tableName: string;
  signingKeyFile: string;
  issuer: string;
  /** The demo tokens' `aud`; absent when the local stack accepts access tokens only. */
  audience?: string;
  clientId?: string;
  /** The local payments server, when `npm start` runs one (docs/funding.md, "Locally"). */
  payments?: { api_base: string; secret_key: string; webhook_secret: string; webhook_url: string; pricing: unknown };
}

export interface Command<Input = unknown> {
  /** The word after the group (`show` in `org show`); '' for a group that is one command (`token`). */
  name: string;
  /** Positional arguments after the command words, for --help: ['ID']. */
  positionals?: readonly string[];
  options: Readonly<Record<string, OptionSpec>>;
  /** One line for the command list. */
  summary: string;
  /** Only against the local stack (signs with its key). */
  localOnly?: boolean;
  /** Talks to no table: runs without connecting (its connection options are ignored). */
  noTable?: boolean;
  /** Whether the document it answers reports a failure: printed, then exit 1. */
  failed?(result: unknown): boolean;
  parse(args: Args): Input;
  run(input: Input, target: Target): Promise<unknown>;
}

export interface CommandGroup {
  name: string;
  commands: readonly Command[];
}

/** Erases a command's input type so that commands of any input fit one list. */
export const command = <Input>(spec: Command<Input>): Command => spec as unknown as Command;

/** The largest amount of credits a command accepts: beyond it a number is no longer exact. */
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** A command's parsed arguments, with readers that say exactly what is wrong. */
export class Args {
  constructor(
    readonly flags: Readonly<Record<string, string | boolean | undefined>>,
    readonly positionals: readonly string[],
  ) {}

  optional(name: string): string | undefined {
    const value = this.flags[name];
    return typeof value === 'string' ? value : undefined;
  }

  required(name: string): string {
    const value = this.optional(name);
    if (value === undefined || value.trim() === '') throw new UsageError(`--${name} is required`);
    return value;
  }

  /** A whole number in [min, max]; undefined when absent. Digits only: no 1e3, 0x10, 1.0 or +5. */
  integer(name: string, { min = 0, max = MAX_SAFE }: { min?: number; max?: number } = {}): number | undefined {
    const raw = this.optional(name);
    if (raw === undefined) return undefined;
    const value = /^-?[0-9]+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
    }
    return value;
  }

  /** Credits to move: a positive safe integer (a larger one would not survive as a number). */
  amount(name: string): number {
    this.required(name);
    return this.integer(name, { min: 1 })!;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[]): T {
    return checkOneOf(this.required(name), allowed, `--${name}`);
  }

  positional(index: number, what: string): string {
    const value = this.positionals[index];
    if (value === undefined || value === '') throw new UsageError(`${what} is required`);
    return value;
  }
}

export function checkOneOf<T extends string>(value: string, allowed: readonly T[], what: string): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`${what} must be one of ${allowed.join(', ')}, got "${value}"`);
  return value as T;
}

/** An organization id as the service's routes accept it. */
export function orgId(args: Args, name = 'org'): string {
  const value = args.required(name);
  if (!ORGANIZATION_ID_PATTERN.test(value)) throw new UsageError(`--${name} must look like org_<letters, digits, _ or ->, got "${value}"`);
  return value;
}

/** A user id (a token's `sub`): what a membership key can hold. */
export function userId(args: Args, name = 'user'): string {
  const value = args.required(name);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (value.length > 255 || /[\u0000-\u001f\u007f]/.test(value)) {
    throw new UsageError(`--${name} must be 1 to 255 characters without control characters`);
  }
  return value;
}
