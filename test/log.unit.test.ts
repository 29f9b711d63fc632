import { afterEach, describe, expect, it } from 'vitest';
import { inLogScope, Logger } from '../lib/log.ts';
import { captureOutput } from './support/output.ts';

const output = captureOutput();
/** Each JSON line written, with its stream. */
const lines = () => output.lines().map(({ stream, record }) => ({ stream, line: record }));
afterEach(() => {
  delete process.env._X_AMZN_TRACE_ID;
});

const context = { functionName: 'GetMe', invokedFunctionArn: 'arn:aws:lambda:eu-west-1:1:function:GetMe', memoryLimitInMB: '1024' };

describe('the logger', () => {
  it('writes one JSON line in the Powertools shape: base keys, Lambda context, trace id, appended keys, own fields', async () => {
    process.env._X_AMZN_TRACE_ID = 'Root=1-67891233-abcdef012345678912345678;Parent=53995c3f42cd8ad8;Sampled=1';
    await inLogScope(async () => {
      const logger = new Logger({});
      logger.addContext({ ...context, awsRequestId: 'req-1' });
      logger.appendKeys({ request_id: 'r1', route: 'GetMe' });
      logger.info('request', { status: 200 });
    });

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
      xray_trace_id: '1-67891233-abcdef012345678912345678',
      request_id: 'r1',
      route: 'GetMe',
      status: 200,
    });
  });

  it('says cold_start only for the first invocation of an instance, and drops appended keys on reset', async () => {
    const logger = new Logger({});
    await inLogScope(async () => {
      logger.addContext({ ...context, awsRequestId: 'a' });
      logger.appendKeys({ caller: 'user_1' });
      logger.resetKeys();
      logger.addContext({ ...context, awsRequestId: 'b' });
      logger.info('second');
    });

    expect(lines().map(({ line }) => [line.cold_start, line.function_request_id, 'caller' in line])).toEqual([[false, 'b', false]]);
  });

  it.each([
    [{}, ['INFO', 'WARN', 'ERROR']],
    [{ LOG_LEVEL: 'debug' }, ['DEBUG', 'INFO', 'WARN', 'ERROR']],
    [{ LOG_LEVEL: 'silent' }, []],
    [{ POWERTOOLS_LOG_LEVEL: 'ERROR', LOG_LEVEL: 'debug' }, ['ERROR']],
    [{ LOG_LEVEL: 'no-such-level' }, ['INFO', 'WARN', 'ERROR']],
    // Lambda's own log level (advanced logging controls) wins when stricter, never when looser.
    [{ LOG_LEVEL: 'DEBUG', AWS_LAMBDA_LOG_LEVEL: 'WARN' }, ['WARN', 'ERROR']],
    [{ LOG_LEVEL: 'ERROR', AWS_LAMBDA_LOG_LEVEL: 'DEBUG' }, ['ERROR']],
  ])('with %j writes the levels %j, warnings and errors on stderr', (env, levels) => {
    const logger = new Logger(env);
    logger.debug('d');
    logger.info('i');
    logger.warn('w');
    logger.error('e');

    expect(lines().map(({ line }) => line.level)).toEqual(levels);
    for (const { stream, line } of lines()) expect(stream).toBe(line.level === 'WARN' || line.level === 'ERROR' ? 'stderr' : 'stdout');
  });

  it('writes an error with its name, location, message, stack, cause and own fields', () => {
    const cause = new TypeError('socket hang up');
    const error = Object.assign(new Error('simulated outage', { cause }), { name: 'InternalServerError', $fault: 'server' });

    new Logger({}).error('unhandled error', { error });

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

    new Logger({}).info('odd values', { big: 12n, circular });

    expect(lines()[0]?.line).toMatchObject({ big: '12', circular: { name: 'loop' } });
    expect(lines()[0]?.line.circular).not.toHaveProperty('self');
  });

  it('keeps the keys and context of invocations running at once in one process apart', async () => {
    const logger = new Logger({});
    const invocation = (id: string) =>
      inLogScope(async () => {
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
