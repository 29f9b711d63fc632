/**
 * An identity provider for an operator who has none (`-c userPool=true`, docs/deployment.md): a
 * Cognito user pool and one public app client configured for this API. Production defaults: only
 * an administrator creates users (self sign-up only with `-c selfSignUp=true`), sign-in by email,
 * a strong password policy, MFA optional (TOTP), deletion protection and RETAIN, so a `cdk
 * destroy` never takes the team's accounts with it. The functions then trust its issuer and its
 * client for both kinds of token (ID tokens' `aud`, access tokens' `client_id`).
 */
import { Aws, Duration, Fn, RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AccountRecovery,
  Mfa,
  OAuthScope,
  UserPool,
  type UserPoolClient,
  UserPoolClientIdentityProvider,
  type UserPoolDomain,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';

export interface IdentityOptions {
  /** Let anyone sign up from the app client (default: administrators create users). */
  selfSignUp?: boolean;
  /**
   * The hosted UI's domain prefix (`-c userPoolDomain=…`: `<prefix>.auth.<region>.amazoncognito.com`),
   * unique in the region; by default `workspace-` and the stack's own id.
   */
  domainPrefix?: string;
}

/** What the functions need to trust this pool's tokens. */
export interface JwtSettings {
  issuer: string;
  jwksUri: string;
  audience: string;
  clientIds: string;
}

export class ServiceUserPool extends Construct {
  readonly userPool: UserPool;
  readonly client: UserPoolClient;
  /** The hosted UI the console signs people in with (authorization code flow with PKCE). */
  readonly domain: UserPoolDomain;
  readonly jwt: JwtSettings;

  /**
   * `consoleUrl`: the console's page (`<api>/console`), the app client's callback and sign-out URL;
   * `consentUrl`: the OAuth consent screen (`<api>/oauth/authorize`), its other callback.
   */
  constructor(scope: Construct, id: string, options: IdentityOptions & { consoleUrl: string; consentUrl: string }) {
    super(scope, id);
    this.userPool = new UserPool(this, 'UserPool', {
      selfSignUpEnabled: options.selfSignUp ?? false,
      signInAliases: { email: true },
      autoVerify: { email: true },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      passwordPolicy: { minLength: 12, requireLowercase: true, requireUppercase: true, requireDigits: true, requireSymbols: true },
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { otp: true, sms: false },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.userPool).acknowledge(
      {
        id: 'AwsSolutions-COG2',
        reason: 'MFA is optional by design (issue 24): each user can turn TOTP on; requiring it would block scripts and first sign-ins.',
      },
      {
        id: 'AwsSolutions-COG3',
        reason:
          'Threat protection (advanced security) needs the Plus feature plan, a cost the operator chooses; the pool is admin-only by default.',
      },
      {
        id: 'AwsSolutions-COG8',
        reason:
          'The Plus feature plan is a per-user cost the operator chooses (the console switches it on); the pool is admin-only by default.',
      },
    );
    // A public client (no secret): the CLI and browser apps sign in with it. USER_PASSWORD_AUTH
    // for `aws cognito-idp initiate-auth` (the walk in docs/deployment.md), SRP for apps, and the
    // hosted UI's authorization code flow for the console (docs/console.md): a public client
    // proves itself with PKCE, and its callbacks are the console's page and the OAuth consent
    // screen, where a person signs in to connect an agent (lib/oauth/hosted-sign-in.ts). No implicit flow.
    this.client = this.userPool.addClient('ApiClient', {
      authFlows: { userPassword: true, userSrp: true },
      generateSecret: false,
      preventUserExistenceErrors: true,
      oAuth: {
        flows: { authorizationCodeGrant: true, implicitCodeGrant: false },
        scopes: [OAuthScope.OPENID, OAuthScope.EMAIL, OAuthScope.PROFILE],
        callbackUrls: [options.consoleUrl, options.consentUrl],
        logoutUrls: [options.consoleUrl],
      },
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      idTokenValidity: Duration.hours(1),
      accessTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.days(30),
    });
    // The stack id's UUID is lowercase hex and hyphens, unique, and never names AWS or Cognito
    // (which a prefix may not contain).
    this.domain = this.userPool.addDomain('HostedUi', {
      cognitoDomain: {
        domainPrefix: options.domainPrefix ?? Fn.join('-', ['workspace', Fn.select(2, Fn.split('/', Aws.STACK_ID))]),
      },
    });
    const issuer = this.userPool.userPoolProviderUrl;
    this.jwt = {
      issuer,
      jwksUri: `${issuer}/.well-known/jwks.json`,
      audience: this.client.userPoolClientId,
      clientIds: this.client.userPoolClientId,
    };
  }
}
