/**
 * An AWS KMS stand-in on 127.0.0.1 for the API-key signer: the JSON 1.1 protocol of `Sign` and
 * `GetPublicKey` (`X-Amz-Target: TrentService.<action>`) for one RSA_2048 key held here, as KMS
 * holds it: the private key never leaves this process. It records each call and refuses a
 * `Sign` with another algorithm or message type, as KMS does.
 */

import { generateKeyPairSync, sign } from 'node:crypto';
import { createServer, type Server } from 'node:http';

export interface KmsStub {
  endpoint: string;
  keyId: string;
  calls: { action: string; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

export async function startKmsStub(): Promise<KmsStub> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyId = 'arn:aws:kms:us-east-1:123456789012:key/11111111-2222-3333-4444-555555555555';
  const calls: KmsStub['calls'] = [];
  const server: Server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    request.on('end', () => {
      const action = String(request.headers['x-amz-target'] ?? '').replace('TrentService.', '');
      const body = JSON.parse(raw || '{}') as Record<string, unknown>;
      calls.push({ action, body });
      const answer = (status: number, payload: unknown) =>
        response.writeHead(status, { 'Content-Type': 'application/x-amz-json-1.1' }).end(JSON.stringify(payload));
      if (body.KeyId !== keyId) return answer(400, { __type: 'NotFoundException', message: `Key '${String(body.KeyId)}' does not exist` });
      if (action === 'GetPublicKey') {
        return answer(200, {
          KeyId: keyId,
          KeySpec: 'RSA_2048',
          KeyUsage: 'SIGN_VERIFY',
          PublicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
          SigningAlgorithms: ['RSASSA_PKCS1_V1_5_SHA_256'],
        });
      }
      if (action === 'Sign') {
        if (body.SigningAlgorithm !== 'RSASSA_PKCS1_V1_5_SHA_256' || body.MessageType !== 'RAW') {
          return answer(400, { __type: 'ValidationException', message: 'unsupported signing algorithm or message type' });
        }
        const signature = sign('RSA-SHA256', Buffer.from(String(body.Message), 'base64'), privateKey);
        return answer(200, { KeyId: keyId, Signature: signature.toString('base64'), SigningAlgorithm: body.SigningAlgorithm });
      }
      return answer(400, { __type: 'UnsupportedOperationException', message: action });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    keyId,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
