import * as z from 'zod/mini';
import { endpoint } from '../lib/http/endpoint.ts';
import { jobIdParam } from '../lib/http/params.ts';
import { getSocialJob } from '../lib/jobs/jobs.ts';

export { jobSchema as responseSchema } from '../lib/jobs/schemas.ts';

/** GET /social/jobs/{job_id} — members of the job's organization; anyone else 404. */
export const handler = endpoint({ schemas: { path: z.object({ job_id: jobIdParam }) } }, async ({ path }, context) =>
  getSocialJob(context.caller, path.job_id),
);
