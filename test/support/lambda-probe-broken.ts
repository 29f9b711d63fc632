/**
 * A function whose bundle fails to load (test/bundled.test.ts): its init throws, as a bundle
 * that imports something missing at run time would.
 */
throw new Error('the probe fails to load');

export const handler = async () => ({ statusCode: 200, body: 'never' });
