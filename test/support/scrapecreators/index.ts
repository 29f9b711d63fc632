/**
 * ScrapeCreators' answers as the tests see them: a vendor-shaped payload for every path the
 * `http` provider calls, one module per network, shared by the stub on 127.0.0.1 and the
 * per-network translation tests (test/social/scrapecreators/).
 */
import { facebook } from './facebook.ts';
import { instagram } from './instagram.ts';
import { linkedin } from './linkedin.ts';
import { reddit } from './reddit.ts';
import { tiktok } from './tiktok.ts';
import { x } from './x.ts';
import { youtube } from './youtube.ts';

/** Payloads by vendor path. */
export type Fixtures = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

export const FIXTURES: Fixtures = { ...instagram, ...tiktok, ...linkedin, ...youtube, ...facebook, ...reddit, ...x };

/** The vendor's success envelope: status fields, then the payload's fields at top level. */
export const envelope = (payload: object) => ({ success: true, credits_remaining: 999, credits_charged: 1, ...payload });
