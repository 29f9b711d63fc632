/**
 * API keys signed by AWS KMS, as deployed (lib/auth/kms-signer.ts): the key-issuing function with
 * API_KEY_KMS_KEY_ID set signs through the KMS client (here against a KMS stand-in on 127.0.0.1
 * speaking KMS's own protocol), publishes the KMS key's public half, and every route then
 * verifies the key's token against it. The private key never reaches the service.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startKmsStub } from '../support/kms-stub.ts';

const kms = await startKmsStub();
afterAll(() => kms.close());
Object.assign(process.env, { API_KEY_KMS_KEY_ID: kms.keyId, AWS_ENDPOINT_URL_KMS: kms.endpoint });

const { handler: createKey } = await import('../../functions/create-api-key.ts');
const { handler: getJwks } = await import('../../functions/get-jwks.ts');
const { handler: getMe } = await import('../../functions/get-me.ts');
const { pemSigner, thumbprintOf } = await import('../../lib/auth/signer.ts');
const { workspace } = await import('../support/fixtures.ts');
const { call } = await import('../support/http.ts');
const { tokenFor, trustedKey } = await import('../support/tokens.ts');

const headerOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString('utf8'));

describe('an API key signed by KMS', () => {
  it('is signed by the KMS key (RS256, RAW), published under its thumbprint, and accepted on every route', async () => {
    // Prepare
    const { orgId, users } = await workspace();

    // Act
    const created = await call(createKey, {
      method: 'POST',
      url: `/organizations/${orgId}/api-keys`,
      token: tokenFor(users.owner),
      body: { name: 'signed by KMS', role: 'viewer' },
    });
    const me = await call(getMe, { url: '/me', token: created.body.token });
    const jwks = await call(getJwks, { url: '/.well-known/jwks.json' });

    // Assess
    expect(created.status).toBe(201);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ token_kind: 'api_key', api_key_id: created.body.id });
    expect(kms.calls.map((entry) => entry.action)).toEqual(['GetPublicKey', 'Sign']);
    expect(kms.calls[1]?.body).toMatchObject({ KeyId: kms.keyId, MessageType: 'RAW', SigningAlgorithm: 'RSASSA_PKCS1_V1_5_SHA_256' });
    const { kid } = headerOf(created.body.token);
    const published = jwks.body.keys.find((key: { kid: string }) => key.kid === kid);
    expect(thumbprintOf(published)).toBe(kid);
    // The KMS key, not the dev key the other tests sign with.
    expect(kid).not.toBe(pemSigner(trustedKey().privateKeyPem).publicJwkSync().kid);
  });

  it('reads the public key once per instance, then only signs', async () => {
    const { orgId, users } = await workspace();
    const before = kms.calls.length;
    const created = await call(createKey, {
      method: 'POST',
      url: `/organizations/${orgId}/api-keys`,
      token: tokenFor(users.owner),
      body: { name: 'second', role: 'editor' },
    });
    expect(created.status).toBe(201);
    expect(kms.calls.slice(before).map((entry) => entry.action)).toEqual(['Sign']);
  });
});
