import { afterEach, describe, expect, it } from 'vitest';
import { credentialsTreatedAsExpired, credentialsWillNeedRefresh, defaultProvider } from '../../infra/stubs/credentials-from-env.ts';

const NAMES = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_CREDENTIAL_EXPIRATION', 'AWS_PROFILE'] as const;
const saved = Object.fromEntries(NAMES.map((name) => [name, process.env[name]]));
const setEnv = (values: Partial<Record<(typeof NAMES)[number], string>>) => {
  for (const name of NAMES) delete process.env[name];
  Object.assign(process.env, values);
};
afterEach(() => {
  for (const name of NAMES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

describe('the credential provider bundled in place of the SDK default chain', () => {
  it("reads the execution role's credentials from the environment, as Lambda sets them", async () => {
    setEnv({ AWS_ACCESS_KEY_ID: 'ASIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'session' });

    await expect(defaultProvider()()).resolves.toMatchObject({
      accessKeyId: 'ASIAEXAMPLE',
      secretAccessKey: 'secret',
      sessionToken: 'session',
    });
  });

  it('says where it looked, and why nowhere else, when the environment has none', async () => {
    setEnv({ AWS_PROFILE: 'operator' });

    await expect(defaultProvider()()).rejects.toThrow(
      /^Unable to find environment variable credentials\. This bundle reads AWS credentials from its environment only \(infra\/stubs\/credentials-from-env\.ts\), as Lambda sets them\.$/,
    );
  });

  it('treats credentials as expiring only when they carry an expiration, five minutes early', () => {
    const inMinutes = (minutes: number) => ({
      accessKeyId: 'a',
      secretAccessKey: 's',
      expiration: new Date(Date.now() + minutes * 60_000),
    });

    expect(credentialsWillNeedRefresh({ accessKeyId: 'a', secretAccessKey: 's' })).toBe(false);
    expect(credentialsWillNeedRefresh(inMinutes(60))).toBe(true);
    expect(credentialsTreatedAsExpired({ accessKeyId: 'a', secretAccessKey: 's' })).toBe(false);
    expect(credentialsTreatedAsExpired(inMinutes(4))).toBe(true);
    expect(credentialsTreatedAsExpired(inMinutes(6))).toBe(false);
  });
});
