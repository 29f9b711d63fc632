/**
 * The command groups of the admin CLI, each loaded only when named. Adding a group is one line
 * here and a module exporting a CommandGroup (see command.ts).
 */
import type { CommandGroup } from './command.ts';

export const GROUPS: Readonly<Record<string, () => Promise<CommandGroup>>> = {
  org: async () => (await import('./org.ts')).group,
  member: async () => (await import('./member.ts')).group,
  invitation: async () => (await import('./invitation.ts')).group,
  key: async () => (await import('./key.ts')).group,
  credits: async () => (await import('./credits.ts')).group,
  events: async () => (await import('./events.ts')).group,
  audit: async () => (await import('./audit.ts')).group,
  usage: async () => (await import('./usage.ts')).group,
  charges: async () => (await import('./charges.ts')).group,
  payments: async () => (await import('./payments.ts')).group,
  jobs: async () => (await import('./jobs.ts')).group,
  webhooks: async () => (await import('./webhooks.ts')).group,
  token: async () => (await import('./token.ts')).group,
  providers: async () => (await import('./providers.ts')).group,
  create: async () => (await import('./resources.ts')).createGroup,
  delete: async () => (await import('./resources.ts')).deleteGroup,
  archive: async () => (await import('./resources.ts')).archiveGroup,
  get: async () => (await import('./resources.ts')).getGroup,
};
