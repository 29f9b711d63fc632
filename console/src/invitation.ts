/**
 * An invitation's link (`<console>#invitation=<token>`, docs/invitations.md): the token is taken
 * out of the address bar as the page loads, before anything else runs, and kept in this tab's
 * session storage until it is accepted or dismissed: through a sign-in, a first sign-up at the
 * hosted UI and back, and a sign-out (to sign in with the invited address instead). A fragment
 * never reaches a server, a proxy or a `Referer`; taken out at once, it stays out of the history too.
 */
export const INVITATION_KEY = 'workspace-console:invitation';

/** Tokens are base64url, at most 512 characters (the API's bound). */
const LINK = /^#invitation=([A-Za-z0-9_-]{1,512})$/;

export function takeInvitationFromAddress(): void {
  const match = LINK.exec(window.location.hash);
  if (!match?.[1]) return;
  sessionStorage.setItem(INVITATION_KEY, match[1]);
  window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}`);
}

export const invitationToken = (): string | null => sessionStorage.getItem(INVITATION_KEY);

export const forgetInvitation = (): void => sessionStorage.removeItem(INVITATION_KEY);
