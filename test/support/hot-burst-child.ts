/**
 * A process that spends from one hot organization until it is killed (test/hot-org-kill.test.ts):
 * bursts of runs of ORG_ID's PAYERS on credit lanes (HOT_ORGANIZATIONS=always), every other
 * provider call never answering, so that at any instant some runs are charged and pending and
 * some lanes hold credits. Prints `spending` once its first run is charged.
 */
import { sampleProvider } from '../../lib/social/providers/sample.ts';
import { runSocialOperation } from '../../lib/social/run.ts';

const orgId = String(process.env.ORG_ID);
const payers = String(process.env.PAYERS).split(',');
const answer = sampleProvider.run.bind(sampleProvider);
let calls = 0;
sampleProvider.run = (request) => {
  calls += 1;
  if (calls === 1) process.stdout.write('spending\n');
  return calls % 2 === 0 ? new Promise(() => undefined) : answer(request);
};

for (;;) {
  await Promise.allSettled(
    Array.from({ length: 8 }, (_, i) =>
      runSocialOperation({
        caller: { userId: payers[i % payers.length] ?? '' },
        orgId,
        operationName: 'x_profile',
        input: { handle: 'nasa' },
        deadlineMs: Date.now() + 25_000,
      }),
    ),
  ).then(() => new Promise((resolve) => setTimeout(resolve, 10)));
}
