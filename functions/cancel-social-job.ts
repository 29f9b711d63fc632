import * as z from 'zod/mini';
import { endpoint } from '../lib/http/endpoint.ts';
import { jobIdParam } from '../lib/http/params.ts';
import { cancelSocialJob } from '../lib/jobs/jobs.ts';
import { jobSchema } from '../lib/jobs/schemas.ts';

export const responseSchema = jobSchema;

/** POST /social/jobs/{job_id}/cancel — editors and owners of the job's organization: 200 the job, its items not yet started cancelled. */
export const handler = endpoint({ schemas: { path: z.object({ job_id: jobIdParam }) } }, async ({ path }, context) =>
  cancelSocialJob(context.caller, path.job_id),
);
