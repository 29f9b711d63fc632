/**
 * API keys signed by an AWS KMS asymmetric key (RSA_2048, SIGN_VERIFY): the private key never
 * leaves KMS. Imported by the key-issuing function alone, so no other bundle carries the KMS
 * client, and only that function's role may call kms:Sign (infra/stack.ts).
 */
import { GetPublicKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { publicJwkOf, type TokenSigner } from './signer.ts';

export function kmsSigner(keyId: string, client = new KMSClient({})): TokenSigner {
  // The public key is read once per instance: it never changes for a given KMS key.
  let jwk: ReturnType<typeof publicJwkOf> | undefined;
  return {
    async publicJwk() {
      if (!jwk) {
        const { PublicKey } = await client.send(new GetPublicKeyCommand({ KeyId: keyId }));
        if (!PublicKey) throw new Error(`KMS returned no public key for ${keyId}`);
        jwk = publicJwkOf({ key: Buffer.from(PublicKey), format: 'der', type: 'spki' });
      }
      return jwk;
    },
    async sign(input) {
      const { Signature } = await client.send(
        new SignCommand({ KeyId: keyId, Message: input, MessageType: 'RAW', SigningAlgorithm: 'RSASSA_PKCS1_V1_5_SHA_256' }),
      );
      if (!Signature) throw new Error(`KMS returned no signature for ${keyId}`);
      return Buffer.from(Signature);
    },
  };
}
