import { db } from '../../lib/db/client.ts';

/**
 * Fault injection at the SDK: a middleware on the service's DynamoDB client makes every command
 * that `matches` selects throw an SDK-like error (by name, as the service matches errors)
 * instead of being sent. Returns the function that removes it.
 */
export function failCommands(matches: (commandName: string) => boolean, errorName = 'InternalServerError'): () => void {
  const name = `fail-${Math.random()}`;
  db().middlewareStack.add(
    (next, context) => async (args) => {
      if (matches(String(context.commandName))) throw Object.assign(new Error('injected'), { name: errorName });
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => db().middlewareStack.remove(name);
}
