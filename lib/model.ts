/**
 * The workspace's vocabulary, shared by every layer: networks, roles, resource kinds, and who
 * may run social operations. Each fact is stated here once; storage, the catalog, the CLI and
 * the docs read it from here. No imports: this module is a leaf.
 */

export const NETWORKS = ['instagram', 'x', 'tiktok', 'youtube', 'facebook', 'linkedin', 'reddit'] as const;
export type Network = (typeof NETWORKS)[number];

export const ROLES = ['viewer', 'editor', 'owner'] as const;
export type Role = (typeof ROLES)[number];

/** Roles that may run (and be charged for) social operations. */
export const RUNNER_ROLES: readonly Role[] = ['editor', 'owner'];
export const mayRunOperations = (role: string): boolean => (RUNNER_ROLES as readonly string[]).includes(role);

export const RESOURCE_KINDS = ['asset', 'skill', 'conversation', 'project'] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

/** Who is asking: the verified token's `sub`, the user id memberships are keyed by. */
export interface Caller {
  userId: string;
}
