/**
 * The single table, defined once. The CDK stack (infra/), DynamoDB Local (npm start) and the
 * tests all build their table from this object, so the three cannot drift apart.
 * Every access pattern is listed in docs/data-model.md; the key formats live in keys.ts.
 */
export const table = {
  partitionKey: 'PK',
  sortKey: 'SK',
  /** Epoch seconds; DynamoDB TTL removes the item some time after it. */
  ttlAttribute: 'expires_at',
  globalSecondaryIndexes: [
    // Overloaded, keys by item type (keys.ts): members of an organization (ORG#<org>), the trash
    // of an organization (TRASH#<org>, sorted by deletion time), the sweep index of pending runs
    // (SWEEP#<shard>, sorted by due time) and the grants due to the expiry function (GRANTS_DUE,
    // sorted by the time each warning or expiry falls due; one partition, read by one pass).
    { indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
  ],
  /**
   * The change stream the stream consumers read (functions/table-stream.ts: usage, alerts, the
   * grants ledger): deployed, DynamoDB
   * Streams feeding an event source mapping (infra/table-stream.ts); locally, DynamoDB Local's own
   * stream read by lib/local/stream-poller.ts. Both images: a consumer that reacts to a crossing
   * (a balance falling below a threshold) needs the value before the write as well as after, and
   * the view type of a stream cannot change without replacing the stream.
   */
  stream: { viewType: 'NEW_AND_OLD_IMAGES' },
} as const;

/** The overloaded GSI1: the charge sweeper queries it for overdue pending runs, the grant expiry for grants due. */
export const SWEEP_INDEX = table.globalSecondaryIndexes[0].indexName;

export type TableKey = { PK: string; SK: string };
