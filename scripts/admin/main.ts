/**
 * The admin CLI's shell: finds the command, reads its arguments, checks them (before anything
 * is read or written), connects, runs it and prints its one JSON document. Exit codes: 0 done
 * (and --help), 1 refused (nothing written; the message says why), 2 bad usage (one line on
 * stderr), 3 failed (the table could not be reached, or an unexpected error).
 */
import { parseArgs } from 'node:util';
import { Refusal, ServiceError } from '../../lib/errors.ts';
import { Args, type Command, type CommandGroup, type OptionSpec, type Target, UsageError } from './command.ts';
import { CONNECTION_OPTIONS, connect } from './connection.ts';
import { GROUPS } from './registry.ts';

export interface Io {
  out(text: string): void;
  err(text: string): void;
}

const PROGRAM = 'npm run --silent admin --';
const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const;
/** Printed instead of a JSON document. */
const HELP_SHOWN = Symbol('help');

export async function main(argv: readonly string[], io: Io): Promise<number> {
  try {
    const result = await dispatch(argv, io);
    const document = result instanceof ReportedFailure ? result.document : result;
    // A command that answers text (CSV) prints it as it is; anything else is a JSON document.
    if (document !== HELP_SHOWN) io.out(typeof document === 'string' ? document : `${JSON.stringify(document, null, 2)}\n`);
    return result instanceof ReportedFailure ? 1 : 0;
  } catch (error) {
    const code = exitCodeOf(error);
    io.err(`admin: ${code === 3 ? 'failed: ' : ''}${messageOf(error)}\n`);
    return code;
  }
}

async function dispatch(argv: readonly string[], io: Io): Promise<unknown> {
  const [groupName, ...rest] = argv;
  if (groupName === undefined) throw new UsageError(`a command is required (${PROGRAM} --help lists them)`);
  if (isHelp(groupName)) {
    io.out(await overview());
    return HELP_SHOWN;
  }
  const load = GROUPS[groupName];
  if (!load) throw new UsageError(`unknown command "${groupName}" (${PROGRAM} --help lists them)`);
  const group = await load();
  const found = findCommand(group, rest);
  if (found === 'help') {
    io.out(groupHelp(group));
    return HELP_SHOWN;
  }
  const [command, args] = found;
  const name = fullName(group, command);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: joinNegativeValues(args),
      options: { ...(command.noTable ? {} : parseOptions(CONNECTION_OPTIONS)), ...parseOptions(command.options), ...HELP_OPTION },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(`${name}: ${parseArgsMessage(error)} (${name} --help)`);
  }
  // No option is declared `multiple`: every value is a string or a boolean.
  const values = parsed.values as Record<string, string | boolean | undefined>;
  const { positionals } = parsed;
  if (values.help) {
    io.out(commandHelp(group, command));
    return HELP_SHOWN;
  }
  const extra = positionals[command.positionals?.length ?? 0];
  if (extra !== undefined) throw new UsageError(`${name}: unexpected argument "${extra}" (${name} --help)`);
  let input: unknown;
  try {
    input = command.parse(new Args(values, positionals));
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(`${name}: ${error.message} (${name} --help)`);
    throw error;
  }
  if (command.noTable) return reported(command, await command.run(input, NO_TABLE));
  const target = await connect(values as { table?: string; region?: string; endpoint?: string });
  if (command.localOnly && (!target.local || !target.dev)) {
    throw new UsageError(`${name} signs with the local stack's key and refuses to run against a non-local table`);
  }
  return reported(command, await command.run(input, target));
}

/** What a command that talks to no table gets for a target: no table, no operator. */
const NO_TABLE: Target = {
  local: false,
  dev: null,
  operator: () => Promise.reject(new Error('this command talks to no table')),
};

/** A document that reports a failure (Command.failed): printed, then exit 1. */
class ReportedFailure {
  constructor(readonly document: unknown) {}
}

const reported = (command: Command, result: unknown): unknown => (command.failed?.(result) ? new ReportedFailure(result) : result);

const isHelp = (word: string | undefined) => word === '--help' || word === '-h' || word === 'help';

/** The command named after the group (or the group's only, unnamed command) and its remaining arguments. */
function findCommand(group: CommandGroup, rest: string[]): [Command, string[]] | 'help' {
  const only = group.commands.length === 1 && group.commands[0]!.name === '' ? group.commands[0]! : undefined;
  if (only) return [only, rest];
  const [word, ...args] = rest;
  if (isHelp(word)) return 'help';
  const names = group.commands.map((command) => command.name).join(', ');
  if (word === undefined || word.startsWith('-')) throw new UsageError(`${group.name}: a command is required: ${names}`);
  const command = group.commands.find((candidate) => candidate.name === word);
  if (!command) throw new UsageError(`unknown command "${group.name} ${word}": ${group.name} takes ${names}`);
  return [command, args];
}

const parseOptions = (options: Readonly<Record<string, OptionSpec>>) =>
  Object.fromEntries(Object.entries(options).map(([name, spec]) => [name, { type: spec.type }])) as Record<
    string,
    { type: 'string' | 'boolean' }
  >;

/** node's parseArgs messages, shortened to what was wrong. */
function parseArgsMessage(error: unknown): string {
  const { code, message } = error as { code?: string; message: string };
  const option = /'(-[^' ]+)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) return `unknown option ${option}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option) return `${option} needs a value`;
  return message.split('\n')[0]!;
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

function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return 2;
  if (error instanceof Refusal) return 1;
  if (error instanceof ServiceError && error.status < 500) return 1;
  return 3;
}

function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const first = error.message.split('\n')[0] || error.name;
  return error instanceof UsageError || error instanceof Refusal || error instanceof ServiceError ? first : `${error.name}: ${first}`;
}

// ---------------------------------------------------------------- help

const fullName = (group: CommandGroup, command: Command) => [group.name, command.name].filter(Boolean).join(' ');

function synopsis(group: CommandGroup, command: Command): string {
  const options = Object.entries(command.options).map(([name, spec]) =>
    spec.required ? `--${name} ${spec.value ?? ''}`.trim() : `[--${name}${spec.value ? ` ${spec.value}` : ''}]`,
  );
  return [fullName(group, command), ...(command.positionals ?? []), ...options].join(' ');
}

const optionLines = (options: Readonly<Record<string, OptionSpec>>) =>
  Object.entries(options).map(([name, spec]) => `  ${`--${name}${spec.value ? ` ${spec.value}` : ''}`.padEnd(24)} ${spec.description}`);

function commandHelp(group: CommandGroup, command: Command): string {
  return [
    `usage: ${PROGRAM} ${synopsis(group, command)}${command.noTable ? '' : ' [--table NAME --region REGION] [--endpoint URL]'}`,
    '',
    `${command.summary[0]!.toUpperCase()}${command.summary.slice(1)}.${command.localOnly ? '' : ' Prints one JSON document.'}`,
    '',
    'options:',
    ...optionLines(command.options),
    ...(command.noTable ? [] : optionLines(CONNECTION_OPTIONS)),
    '',
    command.failed ? EXIT_CODES_OF_A_REPORT : EXIT_CODES,
    '',
  ].join('\n');
}

function groupHelp(group: CommandGroup): string {
  return [
    `usage: ${PROGRAM} ${group.name} <command> [options]`,
    '',
    ...group.commands.map((command) => `  ${synopsis(group, command)}\n      ${command.summary}`),
    '',
    `${PROGRAM} ${group.name} <command> --help shows a command's options.`,
    '',
  ].join('\n');
}

async function overview(): Promise<string> {
  const groups = await Promise.all(Object.values(GROUPS).map((load) => load()));
  return [
    `usage: ${PROGRAM} <command> [options] [--table NAME --region REGION] [--endpoint URL]`,
    '',
    'Every command prints one JSON document on stdout. Without --table, commands use the local',
    'stack (.local/dev.json, written by `npm start`).',
    '',
    'commands:',
    ...groups.flatMap((group) => group.commands.map((command) => `  ${synopsis(group, command)}`)),
    '',
    `${PROGRAM} <command> --help shows a command's options.`,
    '',
    EXIT_CODES,
    '',
  ].join('\n');
}

const EXIT_CODES =
  'exit codes: 0 done, 1 refused (nothing changed; stderr says why), 2 bad usage, 3 failed (e.g. the table could not be reached)';
/** A command whose document reports failures (Command.failed). */
const EXIT_CODES_OF_A_REPORT =
  'exit codes: 0 every check passed, 1 one failed (the document says which), 2 bad usage, 3 failed unexpectedly';
