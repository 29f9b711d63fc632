/**
 * The table's stream read into its function by the local poller, as `npm start` runs it
 * (TABLE_STREAM_POLL_MS, default 250 ms): for the benches that time what the stream feeds
 * (`bench:usage-freshness`, `bench:alerts`). Loaded after the bench's stack set the environment.
 */
export async function startBenchStream() {
  const [{ handler: tableStream, STREAM_CONSUMERS }, poller] = await Promise.all([
    import('../../functions/table-stream.ts'),
    import('../../lib/local/stream-poller.ts'),
  ]);
  return poller.startStreamPoller({
    endpoint: String(process.env.DYNAMODB_ENDPOINT),
    tableName: String(process.env.TABLE_NAME),
    handler: (event) => tableStream(event),
    filters: STREAM_CONSUMERS.flatMap((consumer) => consumer.filters),
    checkpoints: poller.memoryCheckpoints(),
    onFailure: (record) => void console.error('on-failure destination:', JSON.stringify(record)),
    ...(process.env.TABLE_STREAM_POLL_MS ? { pollIntervalMs: Number(process.env.TABLE_STREAM_POLL_MS) } : {}),
  });
}
