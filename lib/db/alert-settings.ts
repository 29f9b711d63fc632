/**
 * An organization's alert settings as stored: one item in its partition (`ALERTS`), absent until
 * an owner first sets them (the defaults then apply).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { type AuditSource, auditEventPut, changesOf } from './audit-events.ts';
import { batchGetAll, conditionFailed, db, tableName, transact } from './client.ts';
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
  return (await readStoredAlertSettings(orgId)).settings;
}

/** The settings as stored (`stored`: whether an owner set them, else they are the defaults). */
export interface StoredAlertSettings {
  settings: AlertSettings;
  stored: boolean;
}

/** The settings and whether they were set (consistent). */
export async function readStoredAlertSettings(orgId: string): Promise<StoredAlertSettings> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: alertSettingsKey(orgId), ConsistentRead: true }));
  return Item ? { settings: settingsOf(Item), stored: true } : { settings: DEFAULT_ALERT_SETTINGS, stored: false };
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

/** The settings changed between their read and the write: read again. */
class SettingsChanged extends Error {}

/** Up to this many reads and writes while the settings keep changing under a write. */
const SETTINGS_WRITE_ATTEMPTS = 4;

/**
 * Replaces the settings, in one transaction with the condition that the setter is still an owner
 * (NotAnOwner) and that they are still as read (`read`, read beside the owner check; else read now), with their
 * `alerts.updated` event. Settings equal to those in force (the defaults included) write nothing.
 */
export async function putAlertSettings(
  orgId: string,
  setterId: string,
  settings: AlertSettings,
  source: AuditSource,
  now: Date,
  read?: StoredAlertSettings,
): Promise<void> {
  let current = read ?? (await readStoredAlertSettings(orgId));
  for (let attempt = 1; ; attempt += 1) {
    const changes = changesOf(current.settings, settings, ['low_balance', 'thresholds']);
    if (!changes) return;
    const { low_balance, thresholds } = current.settings;
    const asRead = current.stored
      ? {
          ConditionExpression: `thresholds = :readThresholds AND ${low_balance === null ? '(attribute_not_exists(low_balance) OR attribute_type(low_balance, :null))' : 'low_balance = :readLow'}`,
          ExpressionAttributeValues: {
            ':readThresholds': thresholds,
            ...(low_balance === null ? { ':null': 'NULL' } : { ':readLow': low_balance }),
          },
        }
      : { ConditionExpression: 'attribute_not_exists(PK)' };
    try {
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
              ...asRead,
            },
          },
          auditEventPut(orgId, source, { type: 'alerts.updated', target: { type: 'organization', id: orgId }, changes }, now),
        ],
        (reasons) => notAnOwnerIn(reasons) ?? (conditionFailed(reasons, 1) ? new SettingsChanged() : null),
      );
      return;
    } catch (error) {
      if (!(error instanceof SettingsChanged) || attempt >= SETTINGS_WRITE_ATTEMPTS) throw error;
    }
    current = await readStoredAlertSettings(orgId);
  }
}
