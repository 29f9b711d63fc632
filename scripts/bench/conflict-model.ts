/**
 * DynamoDB's transaction conflicts, made to happen against DynamoDB Local, which never cancels
 * a transaction for a conflict: it runs them one at a time (measured: 200 concurrent
 * TransactWriteItems on one item, 200 succeed, 0 TransactionConflict).
 *
 * The rule modelled is DynamoDB's: "an item within a TransactWriteItems request is part of
 * another ongoing TransactWriteItems request" cancels the request with TransactionCanceledException,
 * reason TransactionConflict for that item (developerguide/transaction-apis.html, conflict
 * handling). A transaction here is ongoing from the moment it is sent until its answer; one
 * that finds any of its items held is cancelled at once, without reaching DynamoDB Local. Only
 * transactions are modelled: the charge path writes its hot items (balance, spend counters)
 * only in transactions.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

interface TransactItemInput {
  [action: string]: { TableName?: string; Key?: Record<string, unknown>; Item?: Record<string, unknown> };
}

const keyOf = (item: TransactItemInput): string => {
  const action = Object.values(item)[0]!;
  const key = action.Key ?? { PK: action.Item?.PK, SK: action.Item?.SK };
  return `${action.TableName}|${String(key.PK)}|${String(key.SK)}`;
};

/** A TransactionCanceledException as the SDK throws it, with one reason per item in request order. */
function conflictCancellation(codes: string[]): Error {
  return Object.assign(new Error(`Transaction cancelled, please refer cancellation reasons for specific reasons [${codes.join(', ')}]`), {
    name: 'TransactionCanceledException',
    CancellationReasons: codes.map((Code) => ({ Code, ...(Code === 'None' ? {} : { Message: 'Transaction is ongoing for the item' }) })),
    $fault: 'client',
    $metadata: { httpStatusCode: 400, attempts: 1 },
  });
}

/** Installs the model on `client` until the returned function is called. */
export function modelTransactionConflicts(client: DynamoDBDocumentClient): () => void {
  const held = new Set<string>();
  const name = `transaction-conflict-model-${Math.random()}`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
      const keys = ((args.input as { TransactItems?: TransactItemInput[] }).TransactItems ?? []).map(keyOf);
      if (keys.some((key) => held.has(key)))
        throw conflictCancellation(keys.map((key) => (held.has(key) ? 'TransactionConflict' : 'None')));
      for (const key of keys) held.add(key);
      try {
        return await next(args);
      } finally {
        for (const key of keys) held.delete(key);
      }
    },
    // Innermost: a transaction counts as ongoing only once it is really sent (past the write barrier).
    { step: 'initialize', priority: 'low', name },
  );
  return () => client.middlewareStack.remove(name);
}
