/**
 * An organization's alert settings as stored: one item in its partition (`ALERTS`), absent until
 * an owner first sets them (the defaults then apply).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll, db, tableName, transact } from './client.ts';
import { alertSettingsKey, orgIdOfPartition } from './keys.ts';
import { notAnOwnerIn, stillAnOwner } from './memberships.ts';

export interface AlertSettings {
  low_balance: number | null;
  /** Distinct percentages, sorted. */
  thresholds: number[];
}

export const DEFAULT_ALERT_SETTINGS: AlertSettings = { low_balance: null, thresholds: [80, 100] };

const settingsOf = (item: Record<string, unknown>): AlertSettings => ({
  low_balance: item.low_balance == null ? null : Number(item.low_balance),
  thresholds: (item.thresholds as number[]).map(Number),
});

/** The settings, or the defaults when none were set. */
export async function getAlertSettings(orgId: string): Promise<AlertSettings> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: alertSettingsKey(orgId), ConsistentRead: true }));
  return Item ? settingsOf(Item) : DEFAULT_ALERT_SETTINGS;
}

/** BatchGetItem takes at most this many keys a request. */
const BATCH_KEYS = 100;

/** The settings of each organization given (the defaults where none were set): one BatchGetItem a hundred, in parallel. */
export async function getAlertSettingsOf(orgIds: Iterable<string>): Promise<Map<string, AlertSettings>> {
  const ids = [...new Set(orgIds)];
  const batches = Array.from({ length: Math.ceil(ids.length / BATCH_KEYS) }, (_, i) => ids.slice(i * BATCH_KEYS, (i + 1) * BATCH_KEYS));
  const items = (await Promise.all(batches.map((batch) => batchGetAll(batch.map(alertSettingsKey))))).flat();
  const stored = new Map(items.map((item) => [orgIdOfPartition(String(item.PK)), settingsOf(item)]));
  return new Map(ids.map((id) => [id, stored.get(id) ?? DEFAULT_ALERT_SETTINGS]));
}

/** Replaces the settings, in one transaction with the condition that the setter is still an owner (NotAnOwner). */
export async function putAlertSettings(orgId: string, setterId: string, settings: AlertSettings, now: Date): Promise<void> {
  await transact(
    [
      stillAnOwner(orgId, setterId),
      {
        Put: {
          TableName: tableName(),
          Item: {
            ...alertSettingsKey(orgId),
            entity: 'alert_settings',
            organization_id: orgId,
            low_balance: settings.low_balance,
            thresholds: settings.thresholds,
            updated_at: now.toISOString(),
            updated_by_id: setterId,
          },
        },
      },
    ],
    notAnOwnerIn,
  );
}
