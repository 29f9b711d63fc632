import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * Counts DynamoDB round trips made through `client`, with an SDK middleware:
 * `commands` is every command sent; `sequential` counts waves (a command sent while none is
 * in flight starts a new wave; commands sent alongside it join the wave).
 */
export function countRoundTrips(client: DynamoDBDocumentClient) {
  const log = { commands: [] as string[], sequential: 0 };
  let inFlight = 0;
  const name = `round-trip-counter-${Math.random()}`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (inFlight === 0) log.sequential += 1;
      inFlight += 1;
      log.commands.push(String(context.commandName));
      try {
        return await next(args);
      } finally {
        inFlight -= 1;
      }
    },
    { step: 'initialize', name },
  );
  return {
    log,
    reset() {
      log.commands = [];
      log.sequential = 0;
    },
    stop() {
      client.middlewareStack.remove(name);
    },
  };
}
