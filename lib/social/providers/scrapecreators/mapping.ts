/**
 * The shape of a ScrapeCreators mapping (one operation: its endpoint, its query, the reading of
 * its answer) and `mapping()`, which declares one with the vendor's response typed.
 */
import type * as z from 'zod/mini';
import { logger } from '../../../log.ts';
import type { OperationName } from '../../catalog/names.ts';
import { readBody } from './read-body.ts';

/** The operation's input, already validated by its catalog schema (defaults applied). */
export type Input = Readonly<Record<string, unknown>>;
/** The query string of the vendor call; undefined and '' are left out. */
export type Params = Record<string, string | number | undefined>;

/** One operation served by ScrapeCreators: its endpoint, its query, the reading of its answer. */
export interface Mapping {
  readonly path: string;
  params(input: Input): Params;
  /** The vendor's JSON body in our output shape; throws if the body is not the recorded shape. */
  translate(body: unknown, input: Input): unknown;
}

/** What a vendor shape (a function building its schema) reads as. */
export type Vendor<Shape extends () => z.ZodMiniType> = z.output<ReturnType<Shape>>;

/** A network's mappings, by operation name. */
export type Mappings = Readonly<Partial<Record<OperationName, Mapping>>>;

interface MappingSpec<Response extends z.ZodMiniType> {
  path: string;
  params(input: Input): Params;
  /** What the vendor answers (social-operations.md): the fields the translation reads, no more. Built on first use. */
  response: () => Response;
  translate(body: z.output<Response>, input: Input): unknown;
}

/**
 * Declares a mapping. `translate` reads the body as `response` types it (read-body.ts): a vendor
 * shape change is logged or refused with the path that changed, instead of being met as a
 * property of undefined in the middle of a translation.
 */
export function mapping<Response extends z.ZodMiniType>(spec: MappingSpec<Response>): Mapping {
  let response: Response | undefined;
  return {
    path: spec.path,
    params: spec.params,
    translate(body, input) {
      response ??= spec.response();
      const { data, unreadable } = readBody(response, body);
      if (unreadable.length > 0) {
        logger.warn('ScrapeCreators answered values of an unexpected type: read as absent', { vendor_path: spec.path, unreadable });
      }
      return spec.translate(data, input);
    },
  };
}
