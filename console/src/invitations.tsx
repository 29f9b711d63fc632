/**
 * The signed-in person's invitations (docs/invitations.md): the one their link brought
 * (invitation.ts), and those `GET /me` lists for their verified address. Accepting one makes them
 * a member; the answers that refuse say what to do.
 */
import { useState } from 'preact/hooks';
import { type Api, ApiError, data } from './api.ts';
import { forgetInvitation, invitationToken } from './invitation.ts';
import { formatTime } from './model.ts';
import { ErrorNote, useAction } from './ui.tsx';

export interface PendingInvitation {
  id: string;
  organization_id: string;
  organization_name: string;
  role: string;
  spending_limit: number | null;
  daily_limit: number | null;
  expires_at: string;
}

/** A refusal of an acceptance, in a person's words. */
function refusalText(error: unknown): Error | unknown {
  if (!(error instanceof ApiError)) return error;
  const text: Record<string, string> = {
    not_found: 'This invitation no longer works: it was used, revoked, or it expired. Ask the workspace owner to send it again.',
    email_mismatch:
      'This invitation is for another email address than the one you signed in with. Sign out, then sign in (or sign up) with the invited address.',
    email_not_verified: 'Your account has no verified email address: verify it with your identity provider, then sign in again.',
    already_member: 'You are a member of this workspace already.',
  };
  return error.code && text[error.code] ? new Error(text[error.code]) : error;
}

const limit = (value: number | null, period: string) => (value === null ? `no ${period} limit` : `${value} credits a ${period}`);

export function Invitations({
  api,
  invitations,
  onAccepted,
}: {
  /** The client that sends the person's ID token when there is one (it carries their address). */
  api: Api;
  invitations: PendingInvitation[];
  onAccepted: (organizationId: string) => void;
}) {
  const [token, setToken] = useState(invitationToken);
  const action = useAction();
  if (!token && invitations.length === 0) return null;
  const accept = (body: { token: string } | { invitation_id: string }) =>
    void action.run(async () => {
      try {
        const accepted = await data(api.POST('/invitations/accept', { body }));
        forgetInvitation();
        setToken(null);
        onAccepted(accepted.organization_id);
      } catch (error) {
        if (error instanceof ApiError && (error.code === 'not_found' || error.code === 'already_member') && 'token' in body) {
          forgetInvitation();
          setToken(null);
        }
        throw refusalText(error);
      }
    });
  return (
    <section class="card" aria-labelledby="invitations-heading" data-testid="invitations">
      <h2 id="invitations-heading">Invitations</h2>
      {token ? (
        <div class="row">
          <p>You followed an invitation link to a workspace.</p>
          <button type="button" class="primary" disabled={action.busy} onClick={() => accept({ token })}>
            Accept the invitation
          </button>
          <button
            type="button"
            onClick={() => {
              forgetInvitation();
              setToken(null);
            }}
          >
            Dismiss
          </button>
        </div>
      ) : null}
      <ul class="cards">
        {invitations.map((invitation) => (
          <li key={invitation.id} class="card">
            <h3>
              {invitation.organization_name} <span class="badge">{invitation.role}</span>
            </h3>
            <p class="muted">
              {limit(invitation.spending_limit, 'month')}, {limit(invitation.daily_limit, 'day')}; expires{' '}
              {formatTime(invitation.expires_at)}
            </p>
            <button type="button" disabled={action.busy} onClick={() => accept({ invitation_id: invitation.id })}>
              Accept {invitation.organization_name}
            </button>
          </li>
        ))}
      </ul>
      <ErrorNote error={action.error} />
    </section>
  );
}
