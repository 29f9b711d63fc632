/**
 * The pure parts of usage and of the table stream: windows and their refusals, the report's
 * buckets and groups, an operation's network, transactions of at most 100 items, CSV and the
 * choice of it, the filter patterns, and the dispatch's partial batch response.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../lib/errors.ts';
import { csvText, wantsCsv } from '../../lib/http/csv.ts';
import { readableShards } from '../../lib/local/stream-poller.ts';
import { NETWORKS } from '../../lib/model.ts';
import { CATALOG } from '../../lib/social/catalog/definitions.ts';
import { OPERATION_NAMES } from '../../lib/social/catalog/names.ts';
import { compareSequenceNumbers, dispatchBatch, type StreamConsumer } from '../../lib/stream/dispatch.ts';
import { matchesAny, matchesFilter } from '../../lib/stream/filter.ts';
import { transactionsOf, USAGE_FILTERS, usageEventOf } from '../../lib/usage/aggregate.ts';
import { networkOfOperation } from '../../lib/usage/buckets.ts';
import { earliestFromMs, usageReport, usageRows, usageWindow } from '../../lib/usage/report.ts';

const at = (iso: string) => Date.parse(iso);
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof ServiceError) return error.details.issues;
    throw error;
  }
  throw new Error('no refusal');
};

describe('usage windows', () => {
  const now = at('2026-11-26T07:55:00.000Z');

  it('takes 168 hours and 93 days, and refuses one bucket more, naming to', () => {
    expect(usageWindow({ from: '2026-11-01T00:00:00Z', to: '2026-11-08T00:00:00Z', granularity: 'hour' }, now).toMs).toBe(
      at('2026-11-08T00:00:00Z'),
    );
    expect(usageWindow({ from: '2026-08-25T00:00:00Z', to: '2026-11-26T00:00:00Z', granularity: 'day' }, now).fromMs).toBe(
      at('2026-08-25T00:00:00Z'),
    );
    expect(refusal(() => usageWindow({ from: '2026-08-24T00:00:00Z', to: '2026-11-26T00:00:00Z', granularity: 'day' }, now))).toEqual([
      { path: ['query', 'to'], code: 'too_big', message: 'must be at most 93 days after from (93 buckets)' },
    ]);
  });

  it('goes back 13 calendar months to the bucket of that instant, the day clamped to the shorter month', () => {
    expect(new Date(earliestFromMs(now, 'day')).toISOString()).toBe('2025-10-26T00:00:00.000Z');
    expect(new Date(earliestFromMs(now, 'hour')).toISOString()).toBe('2025-10-26T07:00:00.000Z');
    expect(new Date(earliestFromMs(at('2027-03-31T12:00:00Z'), 'day')).toISOString()).toBe('2026-02-28T00:00:00.000Z');
    expect(() => usageWindow({ from: '2025-10-26T00:00:00Z', to: '2025-10-27T00:00:00Z', granularity: 'day' }, now)).not.toThrow();
    expect(refusal(() => usageWindow({ from: '2025-10-25T00:00:00Z', to: '2025-10-27T00:00:00Z', granularity: 'day' }, now))).toEqual([
      {
        path: ['query', 'from'],
        code: 'too_small',
        message: 'must be at most 13 months ago (2025-10-26T00:00:00.000Z or later): usage is kept 13 months',
      },
    ]);
  });

  it('accepts group_by keys in any order, spaces around them ignored', () => {
    expect(
      usageWindow({ from: '2026-11-01T00:00:00Z', to: '2026-11-02T00:00:00Z', granularity: 'day', group_by: 'api_key, network' }, now)
        .groupBy,
    ).toEqual(['api_key', 'network']);
  });
});

describe('the report', () => {
  const window = {
    fromMs: at('2026-11-01T00:00:00Z'),
    toMs: at('2026-11-01T03:00:00Z'),
    granularity: 'hour' as const,
    groupBy: ['network' as const],
  };
  const counter = (
    bucketStart: string,
    operation: string,
    member: string | null,
    apiKey: string | null,
    runs: number,
    charged: number,
    refunded: number,
  ) => ({
    bucketStart,
    operation,
    member,
    apiKey,
    runs,
    charged,
    refunded,
  });

  it('sums counters per bucket and group, every bucket present, groups sorted with null last', () => {
    const report = usageReport(window, [
      counter('2026-11-01T01:00:00.000Z', 'x_profile', 'u1', null, 2, 2, 0),
      counter('2026-11-01T01:00:00.000Z', 'x_search', null, 'key_a', 1, 3, 1),
      counter('2026-11-01T01:00:00.000Z', 'resolve_mention', 'u1', null, 1, 1, 0),
      counter('2026-11-01T01:00:00.000Z', 'instagram_profile', 'u2', null, 1, 1, 1),
    ]);
    expect(report.buckets).toEqual([
      { start: '2026-11-01T00:00:00.000Z', end: '2026-11-01T01:00:00.000Z', results: [] },
      {
        start: '2026-11-01T01:00:00.000Z',
        end: '2026-11-01T02:00:00.000Z',
        results: [
          { network: 'instagram', runs: 1, charged: 1, refunded: 1, net: 0 },
          { network: 'x', runs: 3, charged: 5, refunded: 1, net: 4 },
          { network: null, runs: 1, charged: 1, refunded: 0, net: 1 },
        ],
      },
      { start: '2026-11-01T02:00:00.000Z', end: '2026-11-01T03:00:00.000Z', results: [] },
    ]);
    expect(usageRows(report)).toEqual({
      header: ['start', 'end', 'network', 'runs', 'charged', 'refunded', 'net'],
      rows: [
        ['2026-11-01T01:00:00.000Z', '2026-11-01T02:00:00.000Z', 'instagram', 1, 1, 1, 0],
        ['2026-11-01T01:00:00.000Z', '2026-11-01T02:00:00.000Z', 'x', 3, 5, 1, 4],
        ['2026-11-01T01:00:00.000Z', '2026-11-01T02:00:00.000Z', null, 1, 1, 0, 1],
      ],
    });
  });
});

describe("an operation's network", () => {
  it('is the prefix of its name, as the catalog says, and none for a cross-network operation', () => {
    for (const definition of CATALOG.values())
      expect([definition.name, networkOfOperation(definition.name)]).toEqual([definition.name, definition.network ?? null]);
    expect(
      OPERATION_NAMES.map(networkOfOperation)
        .filter((network) => network !== null)
        .every((network) => NETWORKS.includes(network)),
    ).toBe(true);
  });
});

describe('the aggregator', () => {
  const record = (sequenceNumber: string, image: Record<string, unknown>) => ({
    sequenceNumber,
    eventName: 'INSERT' as const,
    newImage: image,
    oldImage: undefined,
  });
  const charge = (id: string, payer: string, createdAt = '2026-11-01T10:30:00.000Z') => ({
    PK: 'ORG#org_a',
    id,
    type: 'social_operation.charged',
    created_at: createdAt,
    amount: -2,
    metadata: { operation: 'x_profile', user_id: payer, charge_id: id, request_id: 'r' },
  });

  it('reads a charge into its hour and day counters, and names what makes a record poison', () => {
    expect(usageEventOf(record('7', charge('evt_1', 'u1')))).toEqual({
      sequenceNumber: '7',
      orgId: 'org_a',
      id: 'evt_1',
      createdAt: '2026-11-01T10:30:00.000Z',
      deltas: [
        {
          granularity: 'hour',
          bucketStart: '2026-11-01T10:00:00.000Z',
          operation: 'x_profile',
          member: 'u1',
          apiKey: null,
          runs: 1,
          charged: 2,
          refunded: 0,
        },
        {
          granularity: 'day',
          bucketStart: '2026-11-01T00:00:00.000Z',
          operation: 'x_profile',
          member: 'u1',
          apiKey: null,
          runs: 1,
          charged: 2,
          refunded: 0,
        },
      ],
    });
    expect(usageEventOf(record('8', { ...charge('evt_2', 'u1'), amount: 3 }))).toBe('amount: a charge of 3');
    expect(usageEventOf(record('9', { ...charge('evt_3', 'u1'), metadata: { operation: 'x_profile' } }))).toBe(
      'metadata: names neither or both of user_id and api_key_id',
    );
    expect(usageEventOf(record('10', { ...charge('evt_4', 'u1'), created_at: 'yesterday' }))).toMatch(/^created_at: /);
  });

  it('cuts one organization’s events into transactions of at most 100 items: a marker each and a counter update per distinct counter', () => {
    const events = Array.from({ length: 130 }, (_, i) => usageEventOf(record(String(i + 1), charge(`evt_${i}`, `u${i % 25}`))));
    const chunks = transactionsOf(events.filter((event) => typeof event !== 'string'));
    const items = chunks.map(
      (chunk) => chunk.length + new Set(chunk.flatMap((event) => event.deltas.map((delta) => `${delta.granularity}${delta.member}`))).size,
    );
    expect(chunks.flat()).toHaveLength(130);
    expect(items.every((count) => count <= 100)).toBe(true);
    expect(chunks.map((chunk) => chunk.length)).toEqual([50, 50, 30]);
  });

  it('wants new charge and refund events only', () => {
    const lambdaRecord = (eventName: string, image: Record<string, unknown>) => ({ eventName, dynamodb: { NewImage: image } });
    const event = (type: string) => ({ entity: { S: 'billing_event' }, type: { S: type } });
    expect(matchesAny(USAGE_FILTERS, lambdaRecord('INSERT', event('social_operation.charged')))).toBe(true);
    expect(matchesAny(USAGE_FILTERS, lambdaRecord('INSERT', event('social_operation.refunded')))).toBe(true);
    expect(matchesAny(USAGE_FILTERS, lambdaRecord('INSERT', event('credits.granted')))).toBe(false);
    expect(matchesAny(USAGE_FILTERS, lambdaRecord('MODIFY', event('social_operation.charged')))).toBe(false);
    expect(matchesAny(USAGE_FILTERS, lambdaRecord('INSERT', { entity: { S: 'usage_counter' } }))).toBe(false);
  });
});

describe('filter patterns (the part of Lambda’s syntax the consumers use)', () => {
  it('matches exact values and prefixes, field by field, nested', () => {
    const pattern = { eventName: ['INSERT', 'MODIFY'], dynamodb: { Keys: { PK: { S: [{ prefix: 'ORG#' }] } } } };
    expect(matchesFilter(pattern, { eventName: 'MODIFY', dynamodb: { Keys: { PK: { S: 'ORG#a' } } } })).toBe(true);
    expect(matchesFilter(pattern, { eventName: 'REMOVE', dynamodb: { Keys: { PK: { S: 'ORG#a' } } } })).toBe(false);
    expect(matchesFilter(pattern, { eventName: 'INSERT', dynamodb: { Keys: { PK: { S: 'USER#a' } } } })).toBe(false);
    expect(matchesFilter(pattern, { eventName: 'INSERT' })).toBe(false);
  });
});

describe('the dispatch to consumers', () => {
  const records = ['5', '9', '10', '12'].map(
    (sequenceNumber) =>
      ({
        eventName: 'INSERT',
        dynamodb: { SequenceNumber: sequenceNumber, NewImage: { kind: { S: Number(sequenceNumber) % 2 ? 'odd' : 'even' } } },
      }) as DynamoDBRecord,
  );
  const consumer = (name: string, kind: string, handle: StreamConsumer['handle']): StreamConsumer => ({
    name,
    filters: [{ dynamodb: { NewImage: { kind: { S: [kind] } } } }],
    handle,
  });

  it('gives each consumer its records in order, as plain values, and answers the earliest failure of any', async () => {
    const seen: Record<string, unknown[]> = {};
    const answer = await dispatchBatch({ Records: records }, [
      consumer('odd', 'odd', async (mine) => {
        seen.odd = mine.map((record) => [record.sequenceNumber, record.newImage]);
        return '9';
      }),
      consumer('even', 'even', async (mine) => {
        seen.even = mine.map((record) => record.sequenceNumber);
        return '10';
      }),
    ]);
    expect(seen).toEqual({
      odd: [
        ['5', { kind: 'odd' }],
        ['9', { kind: 'odd' }],
      ],
      even: ['10', '12'],
    });
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: '9' }] });
  });

  it('takes a consumer that throws as failing at its first record, and answers no failure when all succeed', async () => {
    const failing = await dispatchBatch({ Records: records }, [
      consumer('even', 'even', async () => {
        throw new Error('down');
      }),
    ]);
    expect(failing).toEqual({ batchItemFailures: [{ itemIdentifier: '10' }] });
    expect(await dispatchBatch({ Records: records }, [consumer('odd', 'odd', async () => undefined)])).toEqual({ batchItemFailures: [] });
  });

  it('compares sequence numbers as numbers', () => {
    expect(['100', '99', '000000000000000000011'].sort(compareSequenceNumbers)).toEqual(['000000000000000000011', '99', '100']);
  });
});

describe('the local poller’s shards', () => {
  const shard = (id: string, parent: string | undefined, ended = false) => [id, { id, parent, iterator: undefined, ended }] as const;

  it('reads a child only once its parent has ended, and a shard whose parent is gone from the stream at once', () => {
    const shards = new Map([shard('a', undefined), shard('b', 'a'), shard('c', 'gone'), shard('d', 'b')]);
    expect(readableShards(shards).map((each) => each.id)).toEqual(['a', 'c']);
    shards.set('a', { ...shards.get('a')!, ended: true });
    expect(readableShards(shards).map((each) => each.id)).toEqual(['b', 'c']);
    shards.set('b', { ...shards.get('b')!, ended: true });
    shards.set('c', { ...shards.get('c')!, ended: true });
    expect(readableShards(shards).map((each) => each.id)).toEqual(['d']);
  });
});

describe('CSV', () => {
  it('writes RFC 4180: CRLF after every record, quotes only where needed, empty for null', () => {
    expect(
      csvText(
        ['a', 'b', 'c'],
        [
          ['x,y', 'say "hi"', null],
          ['line\nbreak', 3, ''],
        ],
      ),
    ).toBe('a,b,c\r\n"x,y","say ""hi""",\r\n"line\nbreak",3,\r\n');
  });

  it.each([
    ['text/csv', true],
    ['text/*', true],
    ['text/csv, */*', true],
    ['text/csv;q=0.9, application/json;q=0.8', true],
    ['TEXT/CSV', true],
    [undefined, false],
    ['*/*', false],
    ['application/json', false],
    ['text/csv, application/json', false],
    ['application/json;q=0.9, text/csv;q=0.5', false],
    ['text/csv;q=0', false],
    ['text/html', false],
  ])('Accept %s: CSV %s', (accept, csv) => {
    expect(wantsCsv(accept)).toBe(csv);
  });
});
