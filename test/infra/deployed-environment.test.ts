/**
 * Every route's function (and each background function, on an empty trigger), run with the
 * environment the stack gives it and nothing else: the variables of its function in the
 * synthesized template (each with the tests' value for it, and SocialProvider at the three
 * vendors), never another function's. A module that reads a variable
 * its function is not given fails here with 500 `internal_error` rather than in a deployment.
 * The listing, the quote, the status page and job creation once did: they built the provider
 * registry, which wanted the vendors' keys only the functions that run providers have.
 *
 * Where the stack gives a secret's ARN (read through Lambda's extension) or a KMS key, the local
 * stand-in the tests use is given instead; the plumbing of the tests (DynamoDB Local, credentials,
 * the log level) stays. Any answer but `internal_error` passes: what each route answers is its own
 * file's to say. In the long tier: a module graph a route (about 60), 10–20 s.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { describe, expect, it, vi } from 'vitest';
import { WorkspaceServiceStack } from '../../infra/stack.ts';
import { routes } from '../../lib/routes.ts';
import { workspace } from '../support/fixtures.ts';
import { call } from '../support/http.ts';
import { useEmbeddedQueues } from '../support/local-queues.ts';
import { handlerOf, sampleRequest } from '../support/routes.ts';
import { tokenFor } from '../support/tokens.ts';
import { functionOf, mergeNested, ofType, resource, stackTemplates } from './template.ts';

const outdir = mkdtempSync(join(tmpdir(), 'cdk-env-'));
const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: false });
const stack = new WorkspaceServiceStack(app, 'WorkspaceService');
app.synth();
const { template } = mergeNested(stackTemplates(outdir, stack));
rmSync(outdir, { recursive: true, force: true });

/** A deployed variable the tests stand in for with another: a secret read at run time, the KMS signing key. */
const STAND_INS: Readonly<Record<string, string>> = {
  OAUTH_SEALING_KEY_SECRET_ARN: 'OAUTH_SEALING_KEY',
  MCP_CONSENT_KEY_SECRET_ARN: 'MCP_CONSENT_KEY',
  STRIPE_SECRET_KEY_SECRET_ARN: 'STRIPE_SECRET_KEY',
  STRIPE_WEBHOOK_SECRET_SECRET_ARN: 'STRIPE_WEBHOOK_SECRET',
  API_KEY_KMS_KEY_ID: 'API_KEY_SIGNING_KEY_PEM',
};

/** Values of the stack's parameters and references the tests have no variable of. */
const DEPLOYED_VALUES: Readonly<Record<string, string>> = {
  SOCIAL_PROVIDER: 'http,tikhub,facebook_scraper3',
  // Nothing listens there: a run fails (refunded), never reaches a vendor.
  SCRAPECREATORS_BASE_URL: 'http://127.0.0.1:9',
  TIKHUB_BASE_URL: 'http://127.0.0.1:9',
  FACEBOOK_SCRAPER3_BASE_URL: 'http://127.0.0.1:9',
};

const testEnvironment = { ...process.env };

/**
 * The service's settings, which each route gets only as its function does: every variable of
 * every function of the template, the tests' stand-ins, and the vendors' plain keys (local use
 * only). The rest (DynamoDB Local, credentials, the log level, Vitest's own) stays as the tests set it.
 */
const SETTINGS = new Set([
  ...ofType(template, 'AWS::Lambda::Function').flatMap(([, fn]) => Object.keys(fn.Properties.Environment.Variables ?? {})),
  ...Object.values(STAND_INS),
  'SCRAPECREATORS_API_KEY',
  'TIKHUB_API_KEY',
  'FACEBOOK_SCRAPER3_API_KEY',
]);
SETTINGS.delete('AWS_REGION');

/** The settings of `functionId` as deployed, in the tests' values. */
function deployedSettings(functionId: string): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const name of Object.keys(resource(template, functionId).Properties.Environment.Variables)) {
    const local = STAND_INS[name] ?? name;
    const value = DEPLOYED_VALUES[name] ?? testEnvironment[local];
    if (value !== undefined) settings[local] = value;
  }
  return settings;
}

describe('every route with the environment the stack gives its function', () => {
  it.each(routes.map((route) => [route.name, route] as const))('%s: no internal_error', async (_name, route) => {
    const { orgId, users } = await workspace({ credits: 10 });
    const request = { ...sampleRequest(route, orgId, tokenFor(users.owner)), contract: false };
    try {
      for (const name of SETTINGS) delete process.env[name];
      Object.assign(process.env, deployedSettings(functionOf(template, route)));
      vi.resetModules();
      // The service afresh: its queues are the tests' embedded ones again, standing in for SQS (JOBS_QUEUE_URL).
      await useEmbeddedQueues();
      const answer = await call(await handlerOf(route), request);
      expect({ route: route.name, status: answer.status, code: answer.body?.code, message: answer.body?.message }).not.toMatchObject({
        code: 'internal_error',
      });
    } finally {
      for (const name of SETTINGS) delete process.env[name];
      for (const name of SETTINGS) if (testEnvironment[name] !== undefined) process.env[name] = testEnvironment[name];
      vi.resetModules();
    }
  });
});

/** The functions no route names, each given what its trigger sends when there is nothing to do. */
const BACKGROUND: readonly (readonly [string, unknown])[] = [
  ['functions/sweep-charges.ts', {}],
  ['functions/expire-grants.ts', {}],
  ['functions/recover-jobs.ts', {}],
  ['functions/reconcile-payments.ts', {}],
  ['functions/job-worker.ts', { Records: [] }],
  ['functions/deliver-webhooks.ts', { Records: [] }],
  ['functions/table-stream.ts', { Records: [] }],
];

describe('every background function with the environment the stack gives it', () => {
  it.each(BACKGROUND)('%s: starts and runs an empty trigger', async (entry, event) => {
    const found = ofType(template, 'AWS::Lambda::Function').find(([, fn]) => String(fn.Properties.Description).includes(`(${entry})`));
    expect(found, `the function of ${entry}`).toBeDefined();
    try {
      for (const name of SETTINGS) delete process.env[name];
      Object.assign(process.env, deployedSettings(found![0]));
      vi.resetModules();
      await useEmbeddedQueues();
      const { localContext } = await import('../../lib/local/apigw-event.ts');
      const { handler } = (await import(new URL(`../../${entry}`, import.meta.url).href)) as {
        handler: (event: unknown, context: unknown) => Promise<unknown>;
      };
      await expect(handler(event, localContext(entry))).resolves.not.toThrow();
    } finally {
      for (const name of SETTINGS) delete process.env[name];
      for (const name of SETTINGS) if (testEnvironment[name] !== undefined) process.env[name] = testEnvironment[name];
      vi.resetModules();
    }
  });
});
