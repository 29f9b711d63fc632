/**
 * The queues as this process's own embedded ones, as under `npm start` (deployed: SQS), loaded on
 * first use: loading them at once would load the logger, which reads its level then, before a
 * test file sets its own (test/jobs/recover-jobs-function.test.ts). setup-env.ts installs them for
 * every file; a file that loads the service afresh (vi.resetModules) installs them again.
 */
export async function useEmbeddedQueues(): Promise<void> {
  const { useLocalQueues } = await import('../../lib/queues/queue.ts');
  const embedded = () => import('../../lib/local/embedded-queue.ts');
  useLocalQueues((name) => ({ send: async (messages) => (await embedded()).embeddedQueue(name).send(messages) }));
}
