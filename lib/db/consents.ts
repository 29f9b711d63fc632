/**
 * The single use of an MCP consent (lib/mcp/consent.ts): an item put, on the condition that it is
 * not there, by the transaction of what the consent allows (a run's charge, a job's creation), so
 * that of two calls with one consent one spends it and the other's transaction is cancelled.
 */
import { type TransactItem, tableName } from './client.ts';
import { consentUseKey } from './keys.ts';

/** The use of consent `nonce`, kept (TTL) until the consent would have expired anyway, and a day more. */
export const consentUsePut = (nonce: string, expiresAtMs: number, orgId: string, now: Date): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: {
      ...consentUseKey(nonce),
      entity: 'consent_use',
      organization_id: orgId,
      used_at: now.toISOString(),
      expires_at: Math.ceil(expiresAtMs / 1000) + 86_400,
    },
    ConditionExpression: 'attribute_not_exists(PK)',
  },
});
