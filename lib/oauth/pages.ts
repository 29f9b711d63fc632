/**
 * The pages of /oauth/authorize: sign-in, consent, and the error page. Pure text in the console's
 * style (its style sheet, by its hashed name). No script at all; every value from the client or
 * the request is escaped text. The policy: the console's style sheet only, forms posted to this
 * page and (for the redirect after approval, which browsers hold to `form-action`) the client's
 * redirect origin, never framed.
 */
import type { Membership } from '../db/memberships.ts';
import type { Role } from '../model.ts';
import { type AuthorizationRequest, requestFields } from './authorization-request.ts';
import { DEFAULT_GRANT_DAYS, MAX_GRANT_DAYS } from './consent.ts';

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

export function pagePolicy(redirectUri?: string): string {
  const redirectOrigin = redirectUri ? ` ${new URL(redirectUri).origin}` : '';
  return [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    `form-action 'self'${redirectOrigin}`,
    "frame-ancestors 'none'",
  ].join('; ');
}

export const pageHeaders = (redirectUri?: string): Record<string, string> => ({
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'Content-Security-Policy': pagePolicy(redirectUri),
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
});

const page = (styleSheet: string, title: string, body: string): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} · Workspace Service</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="../console/${escapeHtml(styleSheet)}">
</head>
<body>
<main class="oauth">
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>
`;

const hidden = (fields: Record<string, string>): string =>
  Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n');

/** Who asks, as far as it can be told: a name the client chose (unverified) and where it sends the person back. */
const whoAsks = (request: AuthorizationRequest): string => {
  const name = request.client.client_name ?? 'An application';
  return `<p><strong>${escapeHtml(name)}</strong> (a name it gives itself, not verified) asks to use this service's MCP tools on your behalf. After you decide, you go back to <strong>${escapeHtml(new URL(request.redirect_uri).host)}</strong>.</p>
<p class="muted">Client: ${escapeHtml(request.client.client_id)}</p>`;
};

/**
 * The sign-in: with the stack's hosted UI, a link to it (`hostedSignIn`, the request carried in a
 * cookie meanwhile) and, below, a token pasted for those who sign in elsewhere; without one (the
 * local stack, another issuer), the pasted token alone, and the page says so.
 */
export function signInPage(styleSheet: string, request: AuthorizationRequest, problem?: string, hostedSignIn?: string): string {
  const hosted = hostedSignIn
    ? `<p><a href="${escapeHtml(hostedSignIn)}" rel="noreferrer">Sign in with your account</a></p>
<p>Or paste an access token of this service's identity provider:</p>`
    : `<p>This deployment has no hosted sign-in page: paste the access token the console signs you in with (on the local stack, a demo user's token from <code>/local-idp/demo-users</code>).</p>`;
  return page(
    styleSheet,
    'Connect an agent',
    `${whoAsks(request)}
${problem ? `<p role="alert">${escapeHtml(problem)}</p>` : ''}
${hosted}
<form method="post" action="authorize">
${hidden(requestFields(request))}
<label for="token">Your access token</label>
<input id="token" name="token" type="password" autocomplete="off" required>
<button type="submit">Sign in</button>
</form>`,
  );
}

export interface ConsentWorkspace {
  membership: Membership;
  roles: Role[];
}

export function consentPage(styleSheet: string, request: AuthorizationRequest, ticket: string, workspaces: ConsentWorkspace[]): string {
  const options = workspaces
    .map(
      ({ membership }) =>
        `<option value="${escapeHtml(membership.organization_id)}">${escapeHtml(membership.organization_id)} (you: ${escapeHtml(membership.role)})</option>`,
    )
    .join('\n');
  const anyEditor = workspaces.some(({ roles }) => roles.includes('editor'));
  return page(
    styleSheet,
    'Allow this agent?',
    `${whoAsks(request)}
<p>The connection is an API key of the workspace you choose: it spends credits only within the limits below, shows in the workspace's API keys, and can be revoked there at any time.</p>
<form method="post" action="authorize">
${hidden({ ...requestFields(request), ticket })}
<label for="organization_id">Workspace</label>
<select id="organization_id" name="organization_id" required>
${options}
</select>
<label for="role">Role (never above yours)</label>
<select id="role" name="role">
<option value="viewer">viewer: lists tools, runs nothing</option>
${anyEditor ? '<option value="editor" selected>editor: runs tools, spends credits</option>' : ''}
</select>
<label for="spending_limit">Monthly limit in credits (empty: none beyond the workspace's)</label>
<input id="spending_limit" name="spending_limit" inputmode="numeric" pattern="[0-9]*" value="1000">
<label for="daily_limit">Daily limit in credits (empty: none)</label>
<input id="daily_limit" name="daily_limit" inputmode="numeric" pattern="[0-9]*" value="100">
<label for="expires_in_days">Expires after (days, 1 to ${MAX_GRANT_DAYS})</label>
<input id="expires_in_days" name="expires_in_days" inputmode="numeric" pattern="[0-9]*" value="${DEFAULT_GRANT_DAYS}" required>
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

export function errorPage(styleSheet: string, message: string): string {
  return page(
    styleSheet,
    'This connection cannot go on',
    `<p role="alert">${escapeHtml(message)}</p><p>Go back to the application and start again.</p>`,
  );
}
