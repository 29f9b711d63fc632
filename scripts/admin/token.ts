import { type CommandGroup, checkOneOf, command, UsageError, userId } from './command.ts';

const token = command({
  name: '',
  summary: "sign a token with the local stack's key (local stack only)",
  localOnly: true,
  options: {
    user: { type: 'string', value: 'SUB', required: true, description: "the token's sub" },
    ttl: { type: 'string', value: 'SECONDS', description: 'lifetime (default 3600; negative: already expired)' },
    email: { type: 'string', value: 'ADDRESS', description: 'the claim `email`, as written (accepting an invitation reads it)' },
    'email-verified': { type: 'string', value: 'true|false', description: 'the claim `email_verified` with --email (default true)' },
  },
  parse: (args) => {
    const ttl = args.optional('ttl');
    if (ttl !== undefined && !/^-?[0-9]{1,9}$/.test(ttl)) throw new UsageError('--ttl must be an integer number of seconds');
    const email = args.optional('email');
    const verified = args.optional('email-verified');
    if (email !== undefined && email.trim() === '') throw new UsageError('--email needs an address');
    if (verified !== undefined && email === undefined) throw new UsageError('--email-verified goes with --email');
    const extra =
      email === undefined
        ? undefined
        : { email, email_verified: verified === undefined || checkOneOf(verified, ['true', 'false'], '--email-verified') === 'true' };
    return { sub: userId(args), ttlSeconds: ttl === undefined ? 3600 : Number(ttl), extra };
  },
  run: async ({ sub, ttlSeconds, extra }, { dev }) => {
    const [{ readFileSync }, { signToken }] = await Promise.all([import('node:fs'), import('../../lib/local/signing-key.ts')]);
    const key = JSON.parse(readFileSync(dev!.signingKeyFile, 'utf8'));
    // An ID-style token when the local stack accepts an audience, else an access token.
    const claims = dev!.audience ? { audience: dev!.audience } : { clientId: dev!.clientId! };
    return { token: signToken(key, { sub, issuer: dev!.issuer, ttlSeconds, ...claims, ...(extra ? { extra } : {}) }) };
  },
});

export const group: CommandGroup = { name: 'token', commands: [token] };
