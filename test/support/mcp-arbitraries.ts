/**
 * Generated MCP messages (fast-check), mostly near the edges the SDK's schemas draw: right and
 * wrong JSON-RPC versions and ids, known and unknown methods, and params whose fields are either
 * what the SDK expects or any JSON value. For test/mcp/schemas.unit.test.ts and
 * test/mcp/sdk-parity.test.ts, which compare our server's reading of them with the SDK's.
 */
import fc from 'fast-check';

/** Any JSON value, small. */
const json = fc.jsonValue({ maxDepth: 2 });

type Either = <T>(expected: fc.Arbitrary<T>) => fc.Arbitrary<unknown>;

/** Either a value of the expected kind or any JSON value. */
const either: Either = (expected) => fc.oneof({ weight: 3, arbitrary: expected }, { weight: 1, arbitrary: json });

/** The same, wrong more rarely: for structures whose faults compound (initialize's params). */
const mostly: Either = (expected) => fc.oneof({ weight: 20, arbitrary: expected }, { weight: 1, arbitrary: json });

/** An object with some of these fields. */
const someOf = (fields: Record<string, fc.Arbitrary<unknown>>) => fc.record(fields, { requiredKeys: [] });

const anObject = fc.oneof(
  fc.constant({}),
  fc.dictionary(fc.string({ maxLength: 4 }), json, { maxKeys: 2 }),
  fc.array(json, { maxLength: 1 }),
);

export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07', '1999-01-01', ''];

export const METHODS = [
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'resources/list',
  'prompts/get',
  'logging/setLevel',
  'completion/complete',
  'tasks/get',
  'tasks/result',
  'sampling/createMessage',
  'constructor',
  '__proto__',
  '',
];

const meta = either(
  someOf({
    progressToken: either(fc.oneof(fc.string({ maxLength: 4 }), fc.integer())),
    'io.modelcontextprotocol/related-task': either(someOf({ taskId: either(fc.string({ maxLength: 4 })), extra: json })),
    max_age: either(fc.integer({ min: -1, max: 90_000 })),
  }),
);

const capabilitiesOf = (either: Either) =>
  either(
    someOf({
      experimental: either(fc.dictionary(fc.string({ maxLength: 3 }), either(anObject), { maxKeys: 2 })),
      sampling: either(someOf({ context: either(anObject), tools: either(anObject) })),
      elicitation: either(
        fc.oneof(fc.constant({}), someOf({ form: either(someOf({ applyDefaults: either(fc.boolean()) })), url: either(anObject) })),
      ),
      roots: either(someOf({ listChanged: either(fc.boolean()) })),
      tasks: either(
        someOf({ list: either(anObject), requests: either(someOf({ sampling: either(someOf({ createMessage: either(anObject) })) })) }),
      ),
      extensions: either(fc.dictionary(fc.string({ maxLength: 3 }), either(anObject), { maxKeys: 2 })),
    }),
  );

const clientInfoOf = (either: Either) =>
  either(
    fc.record(
      {
        name: either(fc.string({ maxLength: 4 })),
        title: either(fc.string({ maxLength: 4 })),
        version: either(fc.string({ maxLength: 4 })),
        icons: either(
          fc.array(either(someOf({ src: either(fc.string({ maxLength: 4 })), theme: either(fc.constantFrom('light', 'dark')) })), {
            maxLength: 2,
          }),
        ),
        websiteUrl: either(fc.string({ maxLength: 4 })),
      },
      { requiredKeys: ['name', 'version'] },
    ),
  );

/** initialize's params: the three it requires, each right or wrong, sometimes with a task or _meta. */
const initializeParams = fc.record(
  {
    protocolVersion: mostly(fc.constantFrom(...PROTOCOL_VERSIONS)),
    capabilities: capabilitiesOf(mostly),
    clientInfo: clientInfoOf(mostly),
    _meta: meta,
    task: either(someOf({ ttl: either(fc.integer()) })),
  },
  { requiredKeys: ['protocolVersion', 'capabilities', 'clientInfo'] },
);

/** Params of any of the methods above, or of none: each field right, wrong or absent. */
export const params = fc.oneof(
  {
    weight: 6,
    arbitrary: someOf({
      _meta: meta,
      task: either(someOf({ ttl: either(fc.integer()) })),
      name: either(fc.constantFrom('x_profile', 'get_job', 'myspace_profile')),
      arguments: either(fc.dictionary(fc.string({ maxLength: 4 }), json, { maxKeys: 2 })),
      cursor: either(fc.string({ maxLength: 4 })),
      protocolVersion: either(fc.constantFrom(...PROTOCOL_VERSIONS)),
      capabilities: capabilitiesOf(either),
      clientInfo: clientInfoOf(either),
      requestId: either(fc.integer()),
    }),
  },
  { weight: 3, arbitrary: initializeParams },
  { weight: 1, arbitrary: json },
);

/** A JSON-RPC message (or something close to one): a request, a notification, a response, or a mix. */
export const message = someOf({
  jsonrpc: fc.oneof({ weight: 9, arbitrary: fc.constant('2.0') }, { weight: 1, arbitrary: json }),
  id: fc.oneof(fc.integer({ min: -3, max: 1_000 }), fc.string({ maxLength: 6 }), json, fc.constantFrom(1.5, 2 ** 53, -0)),
  method: fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...METHODS) }, { weight: 1, arbitrary: json }),
  params,
  result: either(someOf({ _meta: meta, value: json })),
  error: either(
    someOf({ code: either(fc.integer({ min: -32800, max: -32000 })), message: either(fc.string({ maxLength: 4 })), data: json }),
  ),
});

/** A message that is mostly a well-formed request or notification of a known method. */
export const likelyRequest = fc.record({
  jsonrpc: fc.constant('2.0'),
  id: fc.oneof(fc.integer({ min: 0, max: 1_000 }), fc.string({ maxLength: 6 })),
  method: fc.constantFrom(...METHODS),
  params,
});
