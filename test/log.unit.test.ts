/**
 * The one logger (lib/log.ts, Powertools Logger as this service configures it) and the local
 * server's invocations (lib/local/invocations.ts), which keep concurrent requests' log keys apart.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { invoke } from '../lib/local/invocations.ts';
import { createLogger } from '../lib/log.ts';
import { captureOutput } from './support/output.ts';

const output = captureOutput();
/** Each JSON line written, with its stream. */
const lines = () => output.lines().map(({ stream, record }) => ({ stream, line: record }));

const LEVEL_SETTINGS = ['LOG_LEVEL', 'POWERTOOLS_LOG_LEVEL', 'AWS_LAMBDA_LOG_LEVEL'] as const;
/** What Lambda sets for an instance started on demand: Powertools says `cold_start: true` only then. */
const ON_DEMAND = 'AWS_LAMBDA_INITIALIZATION_TYPE';
const saved = Object.fromEntries([...LEVEL_SETTINGS, ON_DEMAND, '_X_AMZN_TRACE_ID'].map((name) => [name, process.env[name]]));
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

/** A logger as a cold start with these level settings makes it (the tests' own LOG_LEVEL=silent left out). */
function loggerWith(env: Partial<Record<(typeof LEVEL_SETTINGS)[number], string>> = {}) {
  for (const name of LEVEL_SETTINGS) delete process.env[name];
  Object.assign(process.env, env);
  return createLogger();
}

const context = {
  functionName: 'GetMe',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:1:function:GetMe',
  memoryLimitInMB: '1024',
  awsRequestId: 'req-1',
  callbackWaitsForEmptyEventLoop: false,
  logGroupName: '/aws/lambda/GetMe',
  logStreamName: 'stream',
  getRemainingTimeInMillis: () => 3_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
};

describe('the logger', () => {
  it('writes one JSON line: base keys, Lambda context, trace id, appended keys, own fields', () => {
    process.env._X_AMZN_TRACE_ID = 'Root=1-67891233-abcdef012345678912345678;Parent=53995c3f42cd8ad8;Sampled=1';
    process.env[ON_DEMAND] = 'on-demand';
    const logger = loggerWith();
    logger.addContext(context);
    logger.appendKeys({ request_id: 'r1', route: 'GetMe' });
    logger.info('request', { status: 200 });

    expect(lines()).toHaveLength(1);
    expect(lines()[0]?.stream).toBe('stdout');
    expect(Object.keys(lines()[0]?.line ?? {})).toEqual([
      'level',
      'message',
      'timestamp',
      'service',
      'cold_start',
      'function_arn',
      'function_memory_size',
      'function_name',
      'function_request_id',
      'sampling_rate',
      'xray_trace_id',
      'request_id',
      'route',
      'status',
    ]);
    expect(lines()[0]?.line).toEqual({
      level: 'INFO',
      message: 'request',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      service: 'workspace-service',
      cold_start: true,
      function_arn: context.invokedFunctionArn,
      function_memory_size: '1024',
      function_name: 'GetMe',
      function_request_id: 'req-1',
      sampling_rate: 0,
      xray_trace_id: '1-67891233-abcdef012345678912345678',
      request_id: 'r1',
      route: 'GetMe',
      status: 200,
    });
  });

  it('says cold_start only for the first invocation of an instance, and drops appended keys on reset', () => {
    process.env[ON_DEMAND] = 'on-demand';
    const logger = loggerWith();
    logger.addContext({ ...context, awsRequestId: 'a' });
    logger.appendKeys({ caller: 'user_1' });
    logger.resetKeys();
    logger.addContext({ ...context, awsRequestId: 'b' });
    logger.info('second');

    expect(lines().map(({ line }) => [line.cold_start, line.function_request_id, 'caller' in line])).toEqual([[false, 'b', false]]);
  });

  it.each([
    [{}, ['INFO', 'WARN', 'ERROR']],
    [{ LOG_LEVEL: 'debug' }, ['DEBUG', 'INFO', 'WARN', 'ERROR']],
    [{ LOG_LEVEL: 'silent' }, []],
    [{ POWERTOOLS_LOG_LEVEL: 'ERROR', LOG_LEVEL: 'debug' }, ['ERROR']],
    [{ LOG_LEVEL: 'no-such-level' }, ['INFO', 'WARN', 'ERROR']],
    // Lambda's own log level (advanced logging controls) wins; the stack sets both from one parameter.
    [{ LOG_LEVEL: 'WARN', AWS_LAMBDA_LOG_LEVEL: 'WARN' }, ['WARN', 'ERROR']],
    [{ LOG_LEVEL: 'DEBUG', AWS_LAMBDA_LOG_LEVEL: 'ERROR' }, ['ERROR']],
  ])('with %j writes the levels %j, warnings and errors on stderr', (env, levels) => {
    const logger = loggerWith(env);
    logger.debug('d');
    logger.info('i');
    logger.warn('w');
    logger.error('e');

    const written = lines().filter(({ line }) => ['d', 'i', 'w', 'e'].includes(line.message));
    expect(written.map(({ line }) => line.level)).toEqual(levels);
    for (const { stream, line } of written) expect(stream).toBe(line.level === 'WARN' || line.level === 'ERROR' ? 'stderr' : 'stdout');
  });

  it('writes an error with its name, location, message, stack, cause and own fields', () => {
    // Thrown in a named function: the location is the first frame that names one, file and line.
    function callUpstream() {
      const cause = new TypeError('socket hang up');
      return { cause, error: Object.assign(new Error('simulated outage', { cause }), { name: 'InternalServerError', $fault: 'server' }) };
    }
    const { cause, error } = callUpstream();

    loggerWith().error('unhandled error', { error });

    const written = lines()[0]?.line.error as Record<string, unknown>;
    expect(written).toEqual({
      name: 'InternalServerError',
      location: expect.stringMatching(/log\.unit\.test\.ts:\d+$/),
      message: 'simulated outage',
      stack: error.stack,
      cause: {
        name: 'TypeError',
        location: expect.stringMatching(/log\.unit\.test\.ts:\d+$/),
        message: 'socket hang up',
        stack: cause.stack,
      },
      $fault: 'server',
    });
  });

  it('never throws on what JSON cannot say: a bigint as text, a circular reference left out', () => {
    const circular: Record<string, unknown> = { name: 'loop' };
    circular.self = circular;

    loggerWith().info('odd values', { big: 12n, circular });

    expect(lines()[0]?.line).toMatchObject({ big: '12', circular: { name: 'loop' } });
    expect(lines()[0]?.line.circular).not.toHaveProperty('self');
  });

  it('keeps the keys and context of invocations running at once in one process apart (the local server)', async () => {
    const logger = loggerWith();
    const invocation = (id: string) =>
      invoke(async () => {
        logger.addContext({ ...context, awsRequestId: id });
        logger.appendKeys({ request_id: id });
        await new Promise((resolve) => setTimeout(resolve, id === 'first' ? 20 : 1));
        logger.info('request');
        logger.resetKeys();
      });

    await Promise.all([invocation('first'), invocation('second')]);

    expect(
      lines()
        .map(({ line }) => [line.request_id, line.function_request_id])
        .sort(),
    ).toEqual([
      ['first', 'first'],
      ['second', 'second'],
    ]);
  });
});
