/**
 * `credits migrate-grants` (docs/funding.md, "Organizations from before grants"): opens the grants
 * ledger of every organization that has none, through the ledger's own legacy conversion
 * (`openLegacyLedger`), so that an organization with no billing event since grants were deployed
 * shows its grants and debt at once rather than at its next event. The conversion's conditional
 * put keeps it to once per organization, whoever comes first: a second run, or the change
 * stream's lazy conversion racing this one, finds the ledger open and counts it as `already`.
 */
import { openLegacyLedger } from '../billing/ledger.ts';
import { getGrant, readLedger } from '../db/grants.ts';
import { grantKey } from '../db/keys.ts';
import { listOrganizations } from '../db/organizations.ts';
import { requireOrganization } from './organizations.ts';

export interface MigratedGrant {
  organization: string;
  grant_id: string;
  credits: number;
  /** After the conversion applied the events since its cutoff. */
  remaining: number;
}

export interface GrantsMigration {
  organizations: number;
  converted: number;
  already: number;
  grants: MigratedGrant[];
}

/** `org list`'s page size: the directory's Query and one BatchGet a page. */
const PAGE_SIZE = 100;

/**
 * Converts the organization `orgId` (refused if it does not exist), or every organization in the
 * directory, a page at a time. One at a time: each conversion reads the organization's whole
 * billing history, and a first deploy is not in a hurry.
 */
export async function migrateGrants(options: { orgId?: string; pageSize?: number } = {}): Promise<GrantsMigration> {
  const result: GrantsMigration = { organizations: 0, converted: 0, already: 0, grants: [] };
  const convert = async (orgId: string) => {
    result.organizations += 1;
    const migrated = await convertOne(orgId);
    if (migrated === 'already') result.already += 1;
    else {
      result.converted += 1;
      if (migrated) result.grants.push(migrated);
    }
  };
  if (options.orgId !== undefined) {
    await requireOrganization(options.orgId);
    await convert(options.orgId);
    return result;
  }
  let after: string | undefined;
  do {
    const page = await listOrganizations({ limit: options.pageSize ?? PAGE_SIZE, ...(after === undefined ? {} : { after }) });
    for (const org of page.organizations) await convert(org.id);
    after = page.next ?? undefined;
  } while (after !== undefined);
  return result;
}

/** 'already' (a ledger is open), or what the conversion made: its grant, or null (a history summing to zero or less). */
async function convertOne(orgId: string): Promise<MigratedGrant | null | 'already'> {
  // A consistent read first: most organizations have a ledger, and the conversion lists the
  // whole billing history before its conditional put would find that out.
  if (await readLedger(orgId)) return 'already';
  const opening = await openLegacyLedger(orgId, new Date());
  if (!opening.opened) return 'already';
  const { grant } = opening;
  if (!grant) return null;
  // The conversion applied the events after its cutoff to the grant: what it holds now.
  const now = await getGrant(grantKey(orgId, grant.created_at, grant.id));
  return { organization: orgId, grant_id: grant.id, credits: grant.credits, remaining: now?.remaining ?? grant.remaining };
}
