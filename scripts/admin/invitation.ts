/**
 * `admin invitation …` (docs/invitations.md, docs/operations.md): an operator's invitation (as
 * `POST …/invitations` makes one, `invited_by` null, its email sent), an organization's
 * invitations, and a revocation. None prints a token: it is only in the email. The email goes
 * through SES's client: against the local stack to its server's stand-in, which writes the outbox
 * `.local/dev.json` names, the link to its console; against a deployed table from `--from` (the
 * stack's InvitationFromAddress) with a link to `--console-url` (its output ConsoleUrl).
 */
import { ROLES } from '../../lib/model.ts';
import { emailProblem, INVITATION_STATUSES } from '../../lib/workspace/invitation-schemas.ts';
import { type Args, type CommandGroup, checkOneOf, command, orgId, type Target, UsageError } from './command.ts';
import { isLocalStack } from './queues.ts';

const ORG = { type: 'string', value: 'ID', required: true, description: 'the organization' } as const;
/** The local stack's sender, as `npm start` sets it when INVITATION_FROM_ADDRESS is not. */
const LOCAL_FROM = 'invitations@workspace.localhost';

function invitationId(args: Args): string {
  const value = args.required('invitation');
  if (!/^inv_[0-9a-f]{32}$/.test(value)) throw new UsageError(`--invitation must look like inv_<32 lowercase hex digits>, got "${value}"`);
  return value;
}

/** The address as the route takes it: trimmed and lower-cased whole, then held to its one rule. */
function emailOf(args: Args): string {
  const email = args.required('email').trim().toLowerCase();
  const problem = emailProblem(email);
  if (problem) throw new UsageError(`--email ${problem}`);
  return email;
}

/** `--from` and `--console-url`: given together, or neither. */
function mailOptions(args: Args): { from: string; consoleUrl: string } | null {
  const from = args.optional('from');
  const consoleUrl = args.optional('console-url');
  if (from === undefined && consoleUrl === undefined) return null;
  if (from === undefined || consoleUrl === undefined) throw new UsageError('--from and --console-url go together');
  if (emailProblem(from.trim().toLowerCase())) throw new UsageError(`--from must be an email address, got "${from}"`);
  let url: URL;
  try {
    url = new URL(consoleUrl);
  } catch {
    throw new UsageError(`--console-url must be a URL, got "${consoleUrl}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError('--console-url must be an http(s) URL');
  return { from, consoleUrl: consoleUrl.replace(/\/+$/, '') };
}

/**
 * Points this process's email where the table's stack sends it, and returns where its links go:
 * the local stack's SES stand-in and console, or the deployed stack's sender and console given.
 */
async function useMailOf(target: Target, given: { from: string; consoleUrl: string } | null): Promise<string> {
  const baseUrl = target.dev?.baseUrl;
  if (isLocalStack(target) && baseUrl) {
    if (given) throw new UsageError('the local stack sends to its own outbox: no --from or --console-url with it');
    const { LOCAL_SES_PREFIX } = await import('../../lib/local/ses-outbox.ts');
    process.env.SES_ENDPOINT = `${baseUrl}${LOCAL_SES_PREFIX}`;
    process.env.INVITATION_FROM_ADDRESS ||= LOCAL_FROM;
    return `${baseUrl}/console`;
  }
  if (!given) {
    throw new UsageError(
      "--from and --console-url are required against a deployed table (the stack's InvitationFromAddress and ConsoleUrl; the local stack needs neither)",
    );
  }
  process.env.INVITATION_FROM_ADDRESS = given.from;
  return given.consoleUrl;
}

const create = command({
  name: 'create',
  summary: 'invite an address as the route does (its rules; invited_by null); sends the email, prints the invitation (never its token)',
  options: {
    org: ORG,
    email: { type: 'string', value: 'E', required: true, description: 'the address (trimmed and lower-cased)' },
    role: { type: 'string', value: 'R', required: true, description: ROLES.join(' | ') },
    'spending-limit': { type: 'string', value: 'N', description: "the member's monthly spending limit in credits (default none)" },
    'daily-limit': { type: 'string', value: 'N', description: "the member's daily spending limit in credits (default none)" },
    'expires-in-days': { type: 'string', value: 'N', description: 'days until the link stops working (1 to 30, default 7)' },
    at: { type: 'string', value: 'ISO-8601', description: 'when it was made (default now; earlier backdates its expiry too)' },
    from: { type: 'string', value: 'ADDRESS', description: "the sender: the stack's InvitationFromAddress (not for the local stack)" },
    'console-url': {
      type: 'string',
      value: 'URL',
      description: "where the link goes: the stack's output ConsoleUrl (not for the local stack)",
    },
  },
  parse: (args) => {
    const at = args.optional('at');
    if (at !== undefined && Number.isNaN(Date.parse(at))) throw new UsageError('--at must be an ISO 8601 date-time');
    if (at !== undefined && Date.parse(at) > Date.now()) throw new UsageError('--at must not be in the future');
    return {
      orgId: orgId(args),
      input: {
        email: emailOf(args),
        role: args.oneOf('role', ROLES),
        spending_limit: args.integer('spending-limit') ?? null,
        daily_limit: args.integer('daily-limit') ?? null,
        expires_in_days: args.integer('expires-in-days', { min: 1, max: 30 }),
      },
      at: at === undefined ? new Date() : new Date(at),
      mail: mailOptions(args),
    };
  },
  run: async ({ orgId, input, at, mail }, target) => {
    const consoleUrl = await useMailOf(target, mail);
    return (await import('../../lib/admin/invitations.ts')).inviteAsOperator(orgId, input, consoleUrl, await target.operator(), at);
  },
});

const list = command({
  name: 'list',
  summary: "the organization's invitations, newest first (each listed until 90 days after it ended)",
  options: { org: ORG, status: { type: 'string', value: INVITATION_STATUSES.join('|'), description: 'only those of that status' } },
  parse: (args) => {
    const status = args.optional('status');
    return { orgId: orgId(args), status: status === undefined ? undefined : checkOneOf(status, INVITATION_STATUSES, '--status') };
  },
  run: async ({ orgId, status }) => (await import('../../lib/admin/invitations.ts')).listOrganizationInvitations(orgId, status),
});

const revoke = command({
  name: 'revoke',
  summary: 'revoke a pending or expired invitation (its link dead at once); prints it',
  options: { org: ORG, invitation: { type: 'string', value: 'ID', required: true, description: 'the invitation (inv_…)' } },
  parse: (args) => ({ orgId: orgId(args), invitationId: invitationId(args) }),
  run: async ({ orgId, invitationId }, target) =>
    (await import('../../lib/admin/invitations.ts')).revokeAsOperator(orgId, invitationId, await target.operator()),
});

export const group: CommandGroup = { name: 'invitation', commands: [create, list, revoke] };
