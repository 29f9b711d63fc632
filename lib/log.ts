import { asyncScope } from './async-scope.ts';
import { serviceName } from './config.ts';

/**
 * The one logger: one JSON object per line, in the shape Powertools Logger writes (which this
 * service used until 2026-11-25; the log queries and docs/observability.md read that shape):
 * `level`, `message`, `timestamp`, `service`, the Lambda context once the chain has added it
 * (`cold_start`, `function_arn`, `function_memory_size`, `function_name`,
 * `function_request_id`), `xray_trace_id` in Lambda, then the keys the middleware chain appends
 * (`request_id`, `route`, `caller`, `organization_id`) and the line's own. Never pass it tokens,
 * API keys, request bodies or whole events.
 *
 * Written here rather than taken from Powertools: this is all of it the service used, and
 * Powertools Logger and its commons cost every function 19 KB of bundle, a fifth of the 1.3×
 * allowance over a bare DynamoDB client (docs/performance.md).
 *
 * Level: POWERTOOLS_LOG_LEVEL, else LOG_LEVEL (tests set `silent`), else INFO; a deployed
 * function's Lambda log level (AWS_LAMBDA_LOG_LEVEL, advanced logging controls) wins when it is
 * stricter, as Lambda would drop the lines below it anyway.
 */
const THRESHOLDS = { TRACE: 6, DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20, CRITICAL: 24, SILENT: 28 } as const;
type Level = keyof typeof THRESHOLDS;

const thresholdOf = (setting: string | undefined): number | undefined =>
  setting && setting.toUpperCase() in THRESHOLDS ? THRESHOLDS[setting.toUpperCase() as Level] : undefined;

/** What a line carries of the Lambda context (Powertools' names). */
export interface LambdaContextLike {
  functionName?: string;
  invokedFunctionArn?: string;
  memoryLimitInMB?: string | number;
  awsRequestId?: string;
}

/** The file and line an error was thrown at, from the first frame of its stack (Powertools' `location`). */
const locationOf = (stack: string | undefined): string => {
  const frame = stack?.split('\n').find((line) => line.trimStart().startsWith('at '));
  const match = frame && /\(?([^\s()]+:\d+):\d+\)?\s*$/.exec(frame);
  return match?.[1] ?? '';
};

/** An error as a log value: name, location, message, stack, its cause, and its own fields. */
function errorFields(error: Error): Record<string, unknown> {
  const { name, message, stack, cause, ...own } = error as Error & Record<string, unknown>;
  return {
    name,
    location: locationOf(stack),
    message,
    stack,
    ...(cause !== undefined && { cause: cause instanceof Error ? errorFields(cause) : cause }),
    ...own,
  };
}

/** JSON of a log line that never throws: errors formatted, bigints as text, circular references left out. */
function serialize(line: Record<string, unknown>): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(line, (_key, value: unknown) => {
    if (typeof value === 'bigint') return value.toString();
    if (value instanceof Error) return errorFields(value);
    if (typeof value === 'object' && value !== null) {
      if (seen.has(value)) return undefined;
      seen.add(value);
    }
    return value;
  });
}

/** `Root=1-…;Parent=…;Sampled=1` → `1-…`, the trace id X-Ray shows. */
const xrayTraceId = (): string | undefined => process.env._X_AMZN_TRACE_ID?.split(';')[0]?.replace('Root=', '') || undefined;

/** What a line carries besides its own fields: the Lambda context and the appended keys. */
interface LogState {
  context: Record<string, unknown>;
  keys: Record<string, unknown>;
}

/**
 * An instance runs one invocation at a time and keeps one state; the local server runs many at
 * once in one process, each in a scope of its own (`inLogScope`), or they would overwrite each
 * other's keys and context (docs/local-development.md).
 */
const scopes = asyncScope<LogState>('log');
const instanceState: LogState = { context: {}, keys: {} };
const state = (): LogState => scopes.getStore() ?? instanceState;

/** Runs `fn` with a log state of its own, as one invocation among others in this process. */
export const inLogScope = <T>(fn: () => Promise<T>): Promise<T> => scopes.run({ context: {}, keys: {} }, fn);

export class Logger {
  private coldStart = true;
  /** The threshold a line's level must reach, read once (an instance's environment does not change). */
  private readonly threshold: number;

  constructor(env: Record<string, string | undefined> = process.env) {
    this.threshold = Math.max(
      thresholdOf(env.POWERTOOLS_LOG_LEVEL || env.LOG_LEVEL) ?? THRESHOLDS.INFO,
      thresholdOf(env.AWS_LAMBDA_LOG_LEVEL) ?? 0,
    );
  }

  /** The Lambda context on every later line; `cold_start` is true for an instance's first invocation only. */
  addContext(context: LambdaContextLike): void {
    state().context = {
      cold_start: this.coldStart,
      function_arn: context.invokedFunctionArn,
      function_memory_size: context.memoryLimitInMB,
      function_name: context.functionName,
      function_request_id: context.awsRequestId,
    };
    this.coldStart = false;
  }

  /** Keys for every later line, until `resetKeys` (the chain calls it when a request ends). */
  appendKeys(keys: Record<string, unknown>): void {
    Object.assign(state().keys, keys);
  }

  resetKeys(): void {
    state().keys = {};
  }

  debug(message: string, fields?: Record<string, unknown>): void {
    this.write('DEBUG', message, fields);
  }

  info(message: string, fields?: Record<string, unknown>): void {
    this.write('INFO', message, fields);
  }

  warn(message: string, fields?: Record<string, unknown>): void {
    this.write('WARN', message, fields);
  }

  error(message: string, fields?: Record<string, unknown>): void {
    this.write('ERROR', message, fields);
  }

  /**
   * `process.stdout`/`stderr` directly, not `console`: in Lambda the runtime wraps console
   * output in its own JSON, and a line that is already JSON must stay one line of its own.
   * Warnings and errors go to stderr, as Powertools sends them.
   */
  private write(level: Level, message: string, fields: Record<string, unknown> = {}): void {
    if (THRESHOLDS[level] < this.threshold) return;
    const { context, keys } = state();
    const line = serialize({
      level,
      message,
      timestamp: new Date().toISOString(),
      service: serviceName(),
      ...context,
      xray_trace_id: xrayTraceId(),
      ...keys,
      ...fields,
    });
    (THRESHOLDS[level] >= THRESHOLDS.WARN ? process.stderr : process.stdout).write(`${line}\n`);
  }
}

export const logger = new Logger();

/** An error with its details (name, message, stack) for the log, never for the client. */
export function logError(message: string, error: unknown, fields: Record<string, unknown> = {}): void {
  logger.error(message, { ...fields, error: error instanceof Error ? error : String(error) });
}

/**
 * Keys for every later line of the current request, its `request` line included (the chain
 * drops them when the request ends): what a paid run names there (operation, credits).
 */
export const logKeys = (keys: Record<string, string | number | boolean>): void => logger.appendKeys(keys);
