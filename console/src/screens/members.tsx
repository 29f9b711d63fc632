/**
 * Members (owners): each member's role, limits and spend; add one, change a role or limits,
 * remove one (the API keeps the last owner: 409 `last_owner`, shown with what to do); invite
 * someone by email, and resend or revoke a pending invitation (docs/invitations.md). Two requests
 * to open, together: the first 100 members and the first 100 pending invitations.
 */
import { useState } from 'preact/hooks';
import { data } from '../api.ts';
import { formatTime, parseLimit, type Role } from '../model.ts';
import { ConfirmButton, ErrorNote, Field, LoadState, MeterRow, Notice, ScreenHeading, useAction, useLoad, useWorkspace } from '../ui.tsx';

const ROLES: Role[] = ['viewer', 'editor', 'owner'];

export function MembersScreen() {
  const { api, orgId } = useWorkspace();
  const members = useLoad(
    () =>
      data(api.GET('/organizations/{organization_id}/members', { params: { path: { organization_id: orgId }, query: { limit: 100 } } })),
    [orgId],
  );
  const [done, setDone] = useState<string | undefined>(undefined);
  const [reloads, setReloads] = useState(0);
  const changed = (message: string) => {
    setDone(message);
    setReloads((count) => count + 1);
    members.reload();
  };
  const list = members.value?.members ?? [];
  return (
    <section>
      <ScreenHeading>Members</ScreenHeading>
      <p class="muted">A member added or removed a moment ago may take a moment to show here.</p>
      <InviteForm onInvited={(email) => changed(`An invitation is on its way to ${email}.`)} />
      <MemberForm title="Add a member by user id" submitLabel="Add member" onSaved={(member) => changed(`${member} is a member.`)} />
      <Notice text={done} />
      <PendingInvitations reloadKey={reloads} onChanged={changed} />
      <LoadState loaded={members} what="members" />
      <ul class="cards">
        {list.map((member) => (
          <li key={member.user_id} class="card" data-testid="member">
            <h3>
              {member.user_id} <span class="badge">{member.role}</span>
            </h3>
            {member.email ? <p class="muted">{member.email}</p> : null}
            <MeterRow label="This month" spent={member.spent} limit={member.spending_limit} />
            <MeterRow label="Today" spent={member.spent_today} limit={member.daily_limit} />
            <MemberActions member={member} onChanged={changed} />
          </li>
        ))}
      </ul>
    </section>
  );
}

interface Member {
  user_id: string;
  role: Role;
  spending_limit: number | null;
  daily_limit: number | null;
}

function MemberForm({
  title,
  submitLabel,
  member,
  onSaved,
  onCancel,
}: {
  title: string;
  submitLabel: string;
  member?: Member;
  onSaved: (userId: string) => void;
  onCancel?: () => void;
}) {
  const { api, orgId } = useWorkspace();
  const [open, setOpen] = useState(Boolean(member));
  const [userId, setUserId] = useState(member?.user_id ?? '');
  const [role, setRole] = useState<Role>(member?.role ?? 'viewer');
  const [month, setMonth] = useState(member?.spending_limit == null ? '' : String(member.spending_limit));
  const [day, setDay] = useState(member?.daily_limit == null ? '' : String(member.daily_limit));
  const action = useAction();
  if (!open)
    return (
      <button type="button" class="primary" onClick={() => setOpen(true)}>
        {title}
      </button>
    );
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const spendingLimit = parseLimit(month);
      const dailyLimit = parseLimit(day);
      if (!spendingLimit.ok || !dailyLimit.ok) throw new Error('Limits are whole numbers of credits, or empty for none.');
      const id = userId.trim();
      if (!id) throw new Error('Name the user by their user id (the `sub` of their token).');
      await data(
        api.PUT('/organizations/{organization_id}/members/{user_id}', {
          params: { path: { organization_id: orgId, user_id: id } },
          body: { role, spending_limit: spendingLimit.value, daily_limit: dailyLimit.value },
        }),
      );
      if (!member) {
        setOpen(false);
        setUserId('');
      }
      onSaved(id);
    });
  };
  return (
    <form class={member ? '' : 'card'} onSubmit={submit} aria-label={member ? `Change ${member.user_id}` : title}>
      {member ? null : <h3>{title}</h3>}
      {member ? null : (
        <Field label="User id" hint="The sub of their token">
          {(props) => <input {...props} required value={userId} onInput={(event) => setUserId(event.currentTarget.value)} />}
        </Field>
      )}
      <div class="row">
        <RoleAndLimits role={role} setRole={setRole} month={month} setMonth={setMonth} day={day} setDay={setDay} />
      </div>
      <ErrorNote error={action.error} />
      <div class="row">
        <button type="submit" class="primary" disabled={action.busy}>
          {submitLabel}
        </button>
        <button
          type="button"
          onClick={() => {
            setOpen(Boolean(member));
            onCancel?.();
          }}
        >
          Cancel
        </button>
      </div>
    </form>
  );
}

function MemberActions({ member, onChanged }: { member: Member; onChanged: (message: string) => void }) {
  const { api, orgId } = useWorkspace();
  const [editing, setEditing] = useState(false);
  const action = useAction();
  if (editing)
    return (
      <MemberForm
        title={`Change ${member.user_id}`}
        submitLabel="Save"
        member={member}
        onSaved={(id) => {
          setEditing(false);
          onChanged(`${id}'s role and limits are saved.`);
        }}
        onCancel={() => setEditing(false)}
      />
    );
  const remove = () =>
    void action.run(async () => {
      await data(
        api.DELETE('/organizations/{organization_id}/members/{user_id}', {
          params: { path: { organization_id: orgId, user_id: member.user_id } },
        }),
      );
      onChanged(`${member.user_id} is no longer a member.`);
    });
  return (
    <>
      <div class="row">
        <button type="button" onClick={() => setEditing(true)}>
          Change role or limits
        </button>
        <ConfirmButton label="Remove" question={`Remove ${member.user_id} from this workspace?`} onConfirm={remove} busy={action.busy} />
      </div>
      <ErrorNote error={action.error} />
    </>
  );
}

/** Invites an address with a role, limits and an expiry; the API sends the email. */
function InviteForm({ onInvited }: { onInvited: (email: string) => void }) {
  const { api, orgId } = useWorkspace();
  const [open, setOpen] = useState(false);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('viewer');
  const [month, setMonth] = useState('');
  const [day, setDay] = useState('');
  const [days, setDays] = useState('7');
  const action = useAction();
  if (!open)
    return (
      <button type="button" class="primary" onClick={() => setOpen(true)}>
        Invite by email
      </button>
    );
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const spendingLimit = parseLimit(month);
      const dailyLimit = parseLimit(day);
      if (!spendingLimit.ok || !dailyLimit.ok) throw new Error('Limits are whole numbers of credits, or empty for none.');
      const expiresInDays = Number(days);
      if (!Number.isInteger(expiresInDays) || expiresInDays < 1 || expiresInDays > 30) throw new Error('The link lasts 1 to 30 days.');
      const invitation = await data(
        api.POST('/organizations/{organization_id}/invitations', {
          params: { path: { organization_id: orgId } },
          body: { email, role, spending_limit: spendingLimit.value, daily_limit: dailyLimit.value, expires_in_days: expiresInDays },
        }),
      );
      setOpen(false);
      setEmail('');
      onInvited(invitation.email);
    });
  };
  return (
    <form class="card" onSubmit={submit} aria-label="Invite by email">
      <h3>Invite by email</h3>
      <Field label="Email address" hint="They sign in (or sign up) with it to accept">
        {(props) => (
          <input
            {...props}
            type="email"
            required
            autoComplete="off"
            value={email}
            onInput={(event) => setEmail(event.currentTarget.value)}
          />
        )}
      </Field>
      <div class="row">
        <RoleAndLimits role={role} setRole={setRole} month={month} setMonth={setMonth} day={day} setDay={setDay} />
        <Field label="Link valid for (days)" hint="1 to 30">
          {(props) => <input {...props} inputMode="numeric" value={days} onInput={(event) => setDays(event.currentTarget.value)} />}
        </Field>
      </div>
      <ErrorNote error={action.error} />
      <div class="row">
        <button type="submit" class="primary" disabled={action.busy}>
          Send invitation
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The pending invitations, each resent (a new link, the old one dead) or revoked. */
function PendingInvitations({ reloadKey, onChanged }: { reloadKey: number; onChanged: (message: string) => void }) {
  const { api, orgId } = useWorkspace();
  const pending = useLoad(
    () =>
      data(
        api.GET('/organizations/{organization_id}/invitations', {
          params: { path: { organization_id: orgId }, query: { status: 'pending', limit: 100 } },
        }),
      ),
    [orgId, reloadKey],
  );
  const action = useAction();
  const list = pending.value?.invitations ?? [];
  const resend = (id: string, email: string) =>
    void action.run(async () => {
      await data(
        api.POST('/organizations/{organization_id}/invitations/{invitation_id}/resend', {
          params: { path: { organization_id: orgId, invitation_id: id } },
        }),
      );
      onChanged(`A new invitation link is on its way to ${email}; the previous one no longer works.`);
    });
  const revoke = (id: string, email: string) =>
    void action.run(async () => {
      await data(
        api.DELETE('/organizations/{organization_id}/invitations/{invitation_id}', {
          params: { path: { organization_id: orgId, invitation_id: id } },
        }),
      );
      onChanged(`The invitation to ${email} is revoked.`);
    });
  return (
    <section aria-labelledby="pending-heading">
      <h3 id="pending-heading">Pending invitations</h3>
      <LoadState loaded={pending} what="invitations" />
      {pending.value && list.length === 0 ? <p class="muted">None.</p> : null}
      <ErrorNote error={action.error} />
      <ul class="cards">
        {list.map((invitation) => (
          <li key={invitation.id} class="card" data-testid="invitation">
            <h3>
              {invitation.email} <span class="badge">{invitation.role}</span>
            </h3>
            <p class="muted">Expires {formatTime(invitation.expires_at)}</p>
            <div class="row">
              <button type="button" disabled={action.busy} onClick={() => resend(invitation.id, invitation.email)}>
                Resend
              </button>
              <ConfirmButton
                label="Revoke"
                question={`Revoke the invitation to ${invitation.email}?`}
                onConfirm={() => revoke(invitation.id, invitation.email)}
                busy={action.busy}
              />
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** A membership's role and its monthly and daily limits, as a member's form and an invitation's both take them. */
function RoleAndLimits(props: {
  role: Role;
  setRole: (role: Role) => void;
  month: string;
  setMonth: (month: string) => void;
  day: string;
  setDay: (day: string) => void;
}) {
  return (
    <>
      <Field label="Role">
        {(field) => (
          <select {...field} value={props.role} onChange={(event) => props.setRole(event.currentTarget.value as Role)}>
            {ROLES.map((each) => (
              <option key={each} value={each}>
                {each}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Monthly limit (credits)" hint="Empty: none">
        {(field) => (
          <input {...field} inputMode="numeric" value={props.month} onInput={(event) => props.setMonth(event.currentTarget.value)} />
        )}
      </Field>
      <Field label="Daily limit (credits)" hint="Empty: none">
        {(field) => <input {...field} inputMode="numeric" value={props.day} onInput={(event) => props.setDay(event.currentTarget.value)} />}
      </Field>
    </>
  );
}
