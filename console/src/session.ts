/**
 * The signed-in person's token: in memory, and in this tab's session storage so that a reload
 * keeps them signed in; never in a cookie (the API would not read one, and no other tab or site
 * gets it). Sign-out and expiry clear it.
 */
import { INVITATION_KEY } from './invitation.ts';
import { tokenExpiry } from './model.ts';

export type SignInMethod = 'demo' | 'token' | 'hosted';

export interface Session {
  token: string;
  method: SignInMethod;
  /** Who, as shown in the header: a demo user's id, or `pasted token`. */
  label: string;
  /** Epoch ms, from the token's `exp`; null when it has none. */
  expiresAt: number | null;
  /**
   * The hosted sign-in's ID token, which alone carries the person's verified `email` in a Cognito
   * pool: sent to `GET /me` and to accept an invitation (docs/invitations.md).
   */
  idToken?: string;
}

const KEY = 'workspace-console:session';

export function newSession(token: string, method: SignInMethod, label: string, idToken?: string): Session {
  return { token: token.trim(), method, label, expiresAt: tokenExpiry(token.trim()), ...(idToken ? { idToken } : {}) };
}

export const isExpired = (session: Session, nowMs = Date.now()): boolean => session.expiresAt !== null && session.expiresAt <= nowMs;

export function loadSession(): Session | null {
  try {
    const stored = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Session | null;
    return stored && typeof stored.token === 'string' ? stored : null;
  } catch {
    return null;
  }
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(KEY, JSON.stringify(session));
}

/**
 * Signing out forgets everything the console kept in this tab: the token, the chosen workspace, the
 * jobs opened. Not an invitation's token still to accept (invitation.ts): whoever signed in with
 * another address than the invited one signs out and in again to accept it.
 */
export function clearSession(): void {
  for (const key of Object.keys(sessionStorage))
    if (key.startsWith('workspace-console:') && key !== PENDING_SIGN_IN && key !== INVITATION_KEY) sessionStorage.removeItem(key);
}

/** Where a hosted sign-in in progress keeps its PKCE verifier (hosted-ui.ts): not a session yet. */
export const PENDING_SIGN_IN = 'workspace-console:pkce';
