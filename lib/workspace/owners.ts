/**
 * What only owners may do (change the organization, its members, keys, alert settings and
 * notification endpoints), checked twice with one answer: before, from the caller's membership
 * (`requireOwner`); and when a write holds only while its writer is still an owner (the
 * transaction's `stillAnOwner` condition, lib/db/memberships.ts), after (`asOwner`). Both refuse
 * with the same 403, so a caller cannot tell a demotion during the request from one before it.
 */
import { membershipOfCaller, refuseApiKeys } from '../auth/access.ts';
import { NotAnOwner } from '../db/memberships.ts';
import { notFound, onlyOwnersChange } from '../errors.ts';
import type { Caller } from '../model.ts';

/** The caller is an owner of the organization: else 403 for another member or its API key, 404 for anyone else. */
export async function requireOwner(caller: Caller, orgId: string): Promise<void> {
  refuseApiKeys(caller, orgId);
  const member = await membershipOfCaller(caller, orgId);
  if (!member) throw notFound();
  if (member.role !== 'owner') throw onlyOwnersChange();
}

/** An owner's write, refused with requireOwner's 403 when its writer was no longer an owner when it was written. */
export async function asOwner<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (error instanceof NotAnOwner) throw onlyOwnersChange();
    throw error;
  }
}
