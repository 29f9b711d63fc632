/**
 * The OAuth sealing key (lib/oauth/sealing-key.ts): its value checked, what it seals opening for
 * its purpose alone and under a kid it still holds, a rotation, and the deployed read through the
 * Parameters and Secrets extension (a real HTTP server on 127.0.0.1 stands in for it): read once a
 * minute at most, the key read before kept when a read fails. What the endpoints do with it is
 * tested through their handlers in test/oauth/flow.test.ts and hosted-sign-in.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthSealingKeySource } from '../../lib/config.ts';
import { keyringOf, open, SEALING_KEY_REREAD_MS, seal } from '../../lib/oauth/sealing-key.ts';

const keyOf = (kid: string) => ({ kid, key: randomBytes(32).toString('hex') });

/** `work` with these environment variables (undefined: unset), then the environment as it was: this tier shares its workers. */
async function withEnv<T>(values: Record<string, string | undefined>, work: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  const set = (all: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(all)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  set(values);
  try {
    return await work();
  } finally {
    set(before);
  }
}

const withKey = <T>(value: unknown, work: () => Promise<T>) => withEnv({ OAUTH_SEALING_KEY: JSON.stringify(value) }, work);

describe("the key's value", () => {
  it.each([
    ['not JSON', 'k1', 'the OAuth sealing key must be JSON: {"kid":"k1","key":"<64 characters>","previous":[…]}'],
    ['no kid', JSON.stringify({ key: 'k'.repeat(64) }), 'the OAuth sealing key: kid must be 1 to 64 letters, digits, "_" or "-"'],
    [
      'a kid with a dot',
      JSON.stringify({ kid: 'k.1', key: 'k'.repeat(64) }),
      'the OAuth sealing key: kid must be 1 to 64 letters, digits, "_" or "-"',
    ],
    ['a short key', JSON.stringify({ kid: 'k1', key: 'short' }), 'the OAuth sealing key: key must be a string of at least 32 characters'],
    [
      'previous not a list',
      JSON.stringify({ kid: 'k2', key: 'k'.repeat(64), previous: { kid: 'k1' } }),
      'the OAuth sealing key: previous must be a list of {"kid","key"}',
    ],
    [
      'a short previous key',
      JSON.stringify({ kid: 'k2', key: 'k'.repeat(64), previous: [{ kid: 'k1', key: 'short' }] }),
      'the OAuth sealing key: previous[0]: key must be a string of at least 32 characters',
    ],
    [
      'a kid twice',
      JSON.stringify({ kid: 'k1', key: 'k'.repeat(64), previous: [{ kid: 'k1', key: 'j'.repeat(64) }] }),
      'the OAuth sealing key names kid "k1" twice',
    ],
  ])('refuses %s, saying why and never the key', (_case, text, message) => {
    expect(() => keyringOf(text)).toThrow(message);
  });

  it('is read from the secret deployed, from OAUTH_SEALING_KEY locally, and refuses both or neither', async () => {
    const arn = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:OAuthSealingKey-AbCdEf';
    const read = (values: Record<string, string | undefined>) =>
      withEnv(values, async () => {
        try {
          return oauthSealingKeySource();
        } catch (error) {
          return (error as Error).message;
        }
      });

    expect(await read({ OAUTH_SEALING_KEY_SECRET_ARN: arn, OAUTH_SEALING_KEY: undefined })).toEqual({ secretArn: arn });
    expect(await read({ OAUTH_SEALING_KEY_SECRET_ARN: undefined, OAUTH_SEALING_KEY: '{}' })).toEqual({ value: '{}' });
    expect(await read({ OAUTH_SEALING_KEY_SECRET_ARN: arn, OAUTH_SEALING_KEY: '{}' })).toBe(
      'set OAUTH_SEALING_KEY_SECRET_ARN (deployed) or OAUTH_SEALING_KEY (local), not both',
    );
    expect(await read({ OAUTH_SEALING_KEY_SECRET_ARN: undefined, OAUTH_SEALING_KEY: undefined })).toBe(
      'OAUTH_SEALING_KEY_SECRET_ARN (deployed) or OAUTH_SEALING_KEY (local) is not set',
    );
  });
});

describe('sealing and opening', () => {
  const k1 = keyOf('k1');
  const value = { userId: 'user_a', untilMs: 1, nonce: 'n' };

  it('opens what it sealed, for the same purpose only; the sealed value names its kid', () =>
    withKey(k1, async () => {
      const sealed = await seal('purpose-a', value);

      expect(sealed.split('.')[0]).toBe('k1');
      expect(await open('purpose-a', sealed)).toEqual(value);
      expect(await open('purpose-b', sealed)).toBeNull();
    }));

  it('refuses a value tampered with, a MAC of another key, a kid it does not hold, or no value at all', () =>
    withKey(k1, async () => {
      const sealed = await seal('purpose-a', value);
      const [kid, payload, mac] = sealed.split('.') as [string, string, string];
      const otherKey = await withKey({ kid: 'k1', key: 'o'.repeat(64) }, () => seal('purpose-a', value));
      const tampered = Buffer.from(JSON.stringify({ ...value, userId: 'user_b' })).toString('base64url');

      for (const given of [
        `${kid}.${tampered}.${mac}`,
        otherKey,
        `k9.${payload}.${mac}`,
        `${kid}.${payload}.${mac}.extra`,
        `${kid}.${payload}`,
        `${kid}.${payload}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`,
        '',
      ]) {
        expect([given, await open('purpose-a', given)]).toEqual([given, null]);
      }
    }));

  it('through a rotation: seals with the new kid, opens the previous one, and refuses it once dropped', async () => {
    const k2 = keyOf('k2');
    const before = await withKey(k1, () => seal('purpose-a', value));

    const [after, openedBefore] = await withKey({ ...k2, previous: [k1] }, async () => [
      await seal('purpose-a', value),
      await open('purpose-a', before),
    ]);
    const [openedAfter, droppedBefore] = await withKey(k2, async () => [
      await open('purpose-a', String(after)),
      await open('purpose-a', before),
    ]);

    expect(String(after).split('.')[0]).toBe('k2');
    expect(openedBefore).toEqual(value);
    expect(openedAfter).toEqual(value);
    expect(droppedBefore).toBeNull();
  });
});

describe('deployed: the secret through the Parameters and Secrets extension', () => {
  const SESSION_TOKEN = 'session-token';
  const ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:OAuthSealingKey-AbCdEf';
  let answer: { status: number; secret: string } = { status: 200, secret: '' };
  const asked: string[] = [];
  const extension = createServer((request, response) => {
    asked.push(`${request.url} ${request.headers['x-aws-parameters-secrets-token']}`);
    const body = answer.status === 200 ? JSON.stringify({ ARN, SecretString: answer.secret }) : 'not ready to serve traffic';
    response.writeHead(answer.status).end(body);
  });
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => extension.listen(0, '127.0.0.1', resolve));
    port = (extension.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => extension.close(() => resolve())));

  it('reads the secret once a minute at most, takes a rotation at the next read, and keeps the key it has while a read fails', async () => {
    const k1 = keyOf('k1');
    const k2 = keyOf('k2');
    const realNow = Date.now;
    let later = 0;
    Date.now = () => realNow() + later;
    const deployed = {
      OAUTH_SEALING_KEY: undefined,
      OAUTH_SEALING_KEY_SECRET_ARN: ARN,
      AWS_SESSION_TOKEN: SESSION_TOKEN,
      PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: String(port),
    };
    try {
      await withEnv(deployed, async () => {
        answer = { status: 200, secret: JSON.stringify(k1) };
        const first = await seal('purpose-a', 'one');
        const second = await seal('purpose-a', 'two');
        expect(asked).toEqual([`/secretsmanager/get?secretId=${encodeURIComponent(ARN)} ${SESSION_TOKEN}`]);

        answer = { status: 200, secret: JSON.stringify({ ...k2, previous: [k1] }) };
        later = SEALING_KEY_REREAD_MS;
        const rotated = await seal('purpose-a', 'three');
        expect([rotated.split('.')[0], await open('purpose-a', first), asked.length]).toEqual(['k2', 'one', 2]);

        answer = { status: 400, secret: '' };
        later = 2 * SEALING_KEY_REREAD_MS;
        expect([await open('purpose-a', second), await open('purpose-a', rotated), asked.length]).toEqual(['two', 'three', 3]);
      });
    } finally {
      Date.now = realNow;
    }
  });
});
