/** The signer of this deployment's API keys, built once per cold start (imported by the key-issuing function only). */
import { apiKeySigning } from '../config.ts';
import { kmsSigner } from './kms-signer.ts';
import { pemSigner, type TokenSigner } from './signer.ts';

let signer: TokenSigner | undefined;

export function issuingSigner(): TokenSigner {
  if (signer) return signer;
  const signing = apiKeySigning();
  if (!signing) throw new Error('API keys cannot be issued: set API_KEY_KMS_KEY_ID (deployed) or API_KEY_SIGNING_KEY_PEM (local)');
  signer = 'kmsKeyId' in signing ? kmsSigner(signing.kmsKeyId) : pemSigner(signing.privateKeyPem);
  return signer;
}
