/** Alert settings (docs/alerts.md): members read them, owners replace them, each bad value a 400 naming its field. */
import { describe, expect, it } from 'vitest';
import { handler as createKey } from '../../functions/create-api-key.ts';
import { handler as getSettings } from '../../functions/get-alert-settings.ts';
import { handler as putSettings } from '../../functions/put-alert-settings.ts';
import { uniqueId, workspace } from '../support/fixtures.ts';
import { call, withoutRequestId } from '../support/http.ts';
import { tokenFor } from '../support/tokens.ts';

const url = (orgId: string) => `/organizations/${orgId}/alerts`;
const put = (orgId: string, token: string, body: unknown) => call(putSettings, { method: 'PUT', url: url(orgId), token, body });

describe('alert settings', () => {
  it('answers the defaults, then what an owner set (thresholds sorted), to every member and key', async () => {
    const { orgId, users } = await workspace();
    const owner = tokenFor(users.owner);
    const key = await call(createKey, {
      method: 'POST',
      url: `/organizations/${orgId}/api-keys`,
      token: owner,
      body: { name: 'k', role: 'viewer' },
    });

    const before = await call(getSettings, { url: url(orgId), token: tokenFor(users.viewer) });
    const replaced = await put(orgId, owner, { low_balance: 50, thresholds: [100, 50, 90] });
    const after = await Promise.all(
      [users.viewer, users.editor].map((user) => call(getSettings, { url: url(orgId), token: tokenFor(user) })),
    );
    const byKey = await call(getSettings, { url: url(orgId), token: key.body.token });
    const cleared = await put(orgId, owner, { low_balance: null, thresholds: [1] });

    expect([before.status, before.body]).toEqual([200, { low_balance: null, thresholds: [80, 100] }]);
    expect([replaced.status, replaced.body]).toEqual([200, { low_balance: 50, thresholds: [50, 90, 100] }]);
    for (const answer of [...after, byKey]) expect(answer.body).toEqual({ low_balance: 50, thresholds: [50, 90, 100] });
    expect(cleared.body).toEqual({ low_balance: null, thresholds: [1] });
  });

  it.each([
    [{ low_balance: -1, thresholds: [80] }, ['body', 'low_balance']],
    [{ low_balance: 1.5, thresholds: [80] }, ['body', 'low_balance']],
    [{ thresholds: [80] }, ['body', 'low_balance']],
    [{ low_balance: null, thresholds: [] }, ['body', 'thresholds']],
    [{ low_balance: null, thresholds: [10, 20, 30, 40, 50, 60] }, ['body', 'thresholds']],
    [{ low_balance: null, thresholds: [80, 80] }, ['body', 'thresholds']],
    [{ low_balance: null, thresholds: [0] }, ['body', 'thresholds', 0]],
    [{ low_balance: null, thresholds: [50, 101] }, ['body', 'thresholds', 1]],
    [{ low_balance: null, thresholds: [50.5] }, ['body', 'thresholds', 0]],
    [{ low_balance: null, thresholds: [80], extra: 1 }, ['body']],
  ])('refuses %j with 400 naming %j, changing nothing', async (body, path) => {
    const { orgId, users } = await workspace();
    const answer = await put(orgId, tokenFor(users.owner), body);
    expect([answer.status, answer.body.code, answer.body.data.issues[0].path]).toEqual([400, 'validation_failed', path]);
    expect((await call(getSettings, { url: url(orgId), token: tokenFor(users.owner) })).body).toEqual({
      low_balance: null,
      thresholds: [80, 100],
    });
  });

  it('refuses other members (403), API keys (403 api_key_not_allowed) and non-members (404 for both routes)', async () => {
    const { orgId, users } = await workspace();
    const owner = tokenFor(users.owner);
    const key = await call(createKey, {
      method: 'POST',
      url: `/organizations/${orgId}/api-keys`,
      token: owner,
      body: { name: 'k', role: 'editor' },
    });
    const body = { low_balance: 5, thresholds: [50] };
    const stranger = tokenFor(uniqueId('stranger_'));

    const editor = await put(orgId, tokenFor(users.editor), body);
    const viewer = await put(orgId, tokenFor(users.viewer), body);
    const byKey = await put(orgId, key.body.token, body);
    const outside = await put(orgId, stranger, body);
    const outsideRead = await call(getSettings, { url: url(orgId), token: stranger });

    const forbidden = { code: 'forbidden', message: 'only owners of the organization can change it, its members and its keys' };
    expect([editor.status, withoutRequestId(editor.body)]).toEqual([403, forbidden]);
    expect([viewer.status, withoutRequestId(viewer.body)]).toEqual([403, forbidden]);
    expect([byKey.status, byKey.body.code]).toEqual([403, 'api_key_not_allowed']);
    expect([outside.status, outside.body.code]).toEqual([404, 'not_found']);
    expect([outsideRead.status, outsideRead.body.code]).toEqual([404, 'not_found']);
    expect((await call(getSettings, { url: url(orgId), token: owner })).body).toEqual({ low_balance: null, thresholds: [80, 100] });
  });
});
