/**
 * An organization's alert settings (docs/alerts.md): the balance under which
 * `credits.balance_low` is sent, and the percentages of a spending limit at which
 * `spending_limit.threshold_reached` is. Members read them; owners replace them.
 */
import { auditSourceOf, membershipOfCaller } from '../auth/access.ts';
import { type AlertSettings, getAlertSettings, putAlertSettings, readStoredAlertSettings } from '../db/alert-settings.ts';
import { notFound } from '../errors.ts';
import type { Caller } from '../model.ts';
import { asOwner, requireOwner } from '../workspace/owners.ts';

/** Any member (an API key of the organization too); anyone else 404. One round trip. */
export async function readAlertSettings(caller: Caller, orgId: string): Promise<AlertSettings> {
  const [member, settings] = await Promise.all([membershipOfCaller(caller, orgId), getAlertSettings(orgId)]);
  if (!member) throw notFound();
  return settings;
}

/**
 * Owners only. Thresholds are answered sorted; the settings in force are read beside the owner
 * check, and the write (with its `alerts.updated` event) holds only while the setter is an owner
 * and they are as read. The settings in force, sent again, write nothing.
 */
export async function replaceAlertSettings(
  caller: Caller,
  orgId: string,
  settings: AlertSettings,
  now = new Date(),
): Promise<AlertSettings> {
  const [, read] = await Promise.all([requireOwner(caller, orgId), readStoredAlertSettings(orgId)]);
  const replaced = { low_balance: settings.low_balance, thresholds: [...settings.thresholds].sort((a, b) => a - b) };
  await asOwner(putAlertSettings(orgId, caller.userId, replaced, await auditSourceOf(caller), now, read));
  return replaced;
}
