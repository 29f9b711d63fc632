import { beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../functions/run-social-operation.ts';
import { CATALOG, descriptors, OPERATION_NAMES } from '../../lib/social/catalog/index.ts';
import { testAjv } from '../support/ajv.ts';
import { workspace } from '../support/fixtures.ts';
import { call } from '../support/http.ts';
import { runUrl, VALID_INPUTS } from '../support/social.ts';
import { tokenFor } from '../support/tokens.ts';

// strict: unknown keywords or formats in a generated schema are errors, not silently ignored.
const ajv = testAjv({ strict: true, allErrors: true });

describe('the catalog of social operations', () => {
  // A refused input is never charged: one workspace serves every operation's 400 cases.
  let refusing: Awaited<ReturnType<typeof workspace>>;
  beforeAll(async () => {
    refusing = await workspace({ credits: 10 });
  });

  it('has exactly the 52 operations of the spec, each with a network except resolve_mention', () => {
    expect(OPERATION_NAMES).toHaveLength(52);
    expect([...descriptors().keys()]).toEqual([...OPERATION_NAMES]);
    for (const name of OPERATION_NAMES) {
      const descriptor = descriptors().get(name)!;
      if (name === 'resolve_mention') expect(descriptor).not.toHaveProperty('network');
      else expect(name.startsWith(`${descriptor.network}_`)).toBe(true);
      expect(descriptor.description.length).toBeGreaterThan(30);
      expect(CATALOG.get(name)!.cost).toBeGreaterThanOrEqual(1);
    }
  });

  it('has a valid input for every operation in the test table', () => {
    expect(Object.keys(VALID_INPUTS).sort()).toEqual([...OPERATION_NAMES].sort());
  });

  describe.each(OPERATION_NAMES.map((name) => [name]))('%s', (name) => {
    const descriptor = descriptors().get(name)!;
    const definition = CATALOG.get(name)!;
    const input = VALID_INPUTS[name]!;

    it('describes its input and output with valid JSON Schema 2020-12', () => {
      expect(descriptor.input_schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(descriptor.output_schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(ajv.validateSchema(descriptor.input_schema)).toBe(true);
      expect(ajv.validateSchema(descriptor.output_schema)).toBe(true);
      expect(() => ajv.compile(descriptor.input_schema)).not.toThrow();
      expect(() => ajv.compile(descriptor.output_schema)).not.toThrow();
    });

    it('accepts the valid input under both its zod and its JSON Schema', () => {
      expect(definition.input.safeParse(input).success).toBe(true);
      expect(ajv.validate(descriptor.input_schema, input)).toBe(true);
    });

    it('runs on the sample provider with output that passes the output schema', async () => {
      const { orgId, users } = await workspace({ credits: 10 });
      const answer = await call(handler, { method: 'POST', url: runUrl(name, orgId), token: tokenFor(users.editor), body: input });
      expect(answer.status).toBe(200);
      expect(ajv.validate(descriptor.output_schema, answer.body)).toBe(true);
      expect(definition.output.safeParse(answer.body).success).toBe(true);
      expect(answer.headers['credits-charged']).toBe(String(definition.cost));
      expect(answer.headers['credits-remaining']).toBe(String(10 - definition.cost));
    });

    it('answers 400 naming each required field that is missing', async () => {
      const required = (descriptor.input_schema.required as string[] | undefined) ?? [];
      expect(required.length).toBeGreaterThan(0);
      const { orgId, users } = refusing;
      for (const field of required) {
        const { [field]: _dropped, ...rest } = input;
        const answer = await call(handler, { method: 'POST', url: runUrl(name, orgId), token: tokenFor(users.editor), body: rest });
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({
          code: 'validation_failed',
          message: `body.${field}: is required`,
          data: { issues: [{ path: ['body', field], code: 'required', message: 'is required' }] },
        });
      }
    });
  });
});
