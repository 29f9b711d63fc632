/**
 * Members (owners): each member's role, limits and spend; add one, change a role or limits,
 * remove one (the API keeps the last owner: 409 `last_owner`, shown with what to do). One request
 * to open (the first 100 members).
 */
import { useState } from 'preact/hooks';
import { data } from '../api.ts';
import { parseLimit, type Role } from '../model.ts';
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
  const changed = (message: string) => {
    setDone(message);
    members.reload();
  };
  const list = members.value?.members ?? [];
  return (
    <section>
      <ScreenHeading>Members</ScreenHeading>
      <p class="muted">A member added or removed a moment ago may take a moment to show here.</p>
      <MemberForm title="Add a member" submitLabel="Add member" onSaved={(member) => changed(`${member} is a member.`)} />
      <Notice text={done} />
      <LoadState loaded={members} what="members" />
      <ul class="cards">
        {list.map((member) => (
          <li key={member.user_id} class="card" data-testid="member">
            <h3>
              {member.user_id} <span class="badge">{member.role}</span>
            </h3>
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
        <Field label="Role">
          {(props) => (
            <select {...props} value={role} onChange={(event) => setRole(event.currentTarget.value as Role)}>
              {ROLES.map((each) => (
                <option key={each} value={each}>
                  {each}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Monthly limit (credits)" hint="Empty: none">
          {(props) => <input {...props} inputMode="numeric" value={month} onInput={(event) => setMonth(event.currentTarget.value)} />}
        </Field>
        <Field label="Daily limit (credits)" hint="Empty: none">
          {(props) => <input {...props} inputMode="numeric" value={day} onInput={(event) => setDay(event.currentTarget.value)} />}
        </Field>
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
