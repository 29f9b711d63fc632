import { db } from '../../lib/db/client.ts';

/**
 * Makes the DynamoDB commands `matches` selects (by SDK command name, e.g. TransactWriteItemsCommand)
 * fail with an SDK-like InternalServerError, before they are sent. Returns the undo.
 */
export function failCommands(matches: (commandName: string) => boolean): () => void {
  const name = `fail-${Math.random()}`;
  db().middlewareStack.add(
    (next, context) => async (args) => {
      if (matches(String(context.commandName))) throw Object.assign(new Error('injected'), { name: 'InternalServerError' });
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => db().middlewareStack.remove(name);
}
