/**
 * Pure key builders: every PK/SK format of the table is here and nowhere else.
 *
 *   ORG#<org>         ORG                       organization (name, networks, balance, limits)
 *   ORG#<org>         EVENT#<created_at>#<id>   billing event (sorted by time)
 *   ORG#<org>         SLUG#<slug>               claim on a project slug by a live project
 *   ORG#<org>         SKILLNAME#<name>          claim on a custom skill name by a live skill
 *   USER#<user>       MEMBER#<org>              membership (role, spending limit); GSI1 = ORG#<org> / MEMBER#<user>
 *   <KIND>#<id>       <KIND>                    asset / skill / conversation / project
 *   RATE#<sub>        WINDOW#<start>            fixed-window request counter (TTL)
 */
import type { TableKey } from './table.ts';

export type ResourceKind = 'asset' | 'skill' | 'conversation' | 'project';

export const orgKey = (orgId: string): TableKey => ({ PK: `ORG#${orgId}`, SK: 'ORG' });

export const membershipKey = (orgId: string, userId: string): TableKey => ({
  PK: `USER#${userId}`,
  SK: `MEMBER#${orgId}`,
});

export const membershipIndexKey = (orgId: string, userId: string) => ({
  GSI1PK: `ORG#${orgId}`,
  GSI1SK: `MEMBER#${userId}`,
});

export const userMembershipsPrefix = (userId: string) => ({ PK: `USER#${userId}`, skPrefix: 'MEMBER#' });

export const billingEventKey = (orgId: string, createdAt: string, id: string): TableKey => ({
  PK: `ORG#${orgId}`,
  SK: `EVENT#${createdAt}#${id}`,
});

/** Sort-key bounds of the events created at or after `since` (ISO strings sort by time). */
export const billingEventRange = (orgId: string, since: string) => ({
  PK: `ORG#${orgId}`,
  from: `EVENT#${since}`,
  // '~' sorts after every character used in ISO timestamps and ids.
  to: 'EVENT#~',
});

export const resourceKey = (kind: ResourceKind, id: string): TableKey => {
  const tag = kind.toUpperCase();
  return { PK: `${tag}#${id}`, SK: tag };
};

export const projectSlugKey = (orgId: string, slug: string): TableKey => ({
  PK: `ORG#${orgId}`,
  SK: `SLUG#${slug}`,
});

/** Skill names are unique case-insensitively ("Summarize" and "summarize" collide). */
export const normalizeSkillName = (name: string): string => name.normalize('NFKC').trim().toLowerCase();

export const skillNameKey = (orgId: string, name: string): TableKey => ({
  PK: `ORG#${orgId}`,
  SK: `SKILLNAME#${normalizeSkillName(name)}`,
});

export const rateLimitKey = (subject: string, windowStart: number): TableKey => ({
  PK: `RATE#${subject}`,
  SK: `WINDOW#${windowStart}`,
});
