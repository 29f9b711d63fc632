/**
 * Parsing of free-form mentions for resolve_mention: "@nike", "tiktok.com/@nike",
 * "https://www.youtube.com/@Nike", "r/aws", "linkedin.com/company/microsoft", … Pure and local:
 * no upstream is needed to say which network and account a mention points to.
 */
import { NETWORKS, type Network } from '../model.ts';

export type MentionKind = 'user' | 'company' | 'page' | 'channel' | 'subreddit' | 'group';

export interface MentionReference {
  network: Network;
  kind: MentionKind;
  handle: string;
  url: string;
}

export const PROFILE_URL: Record<Network, (handle: string) => string> = {
  instagram: (h) => `https://www.instagram.com/${h}/`,
  tiktok: (h) => `https://www.tiktok.com/@${h}`,
  youtube: (h) => `https://www.youtube.com/@${h}`,
  x: (h) => `https://x.com/${h}`,
  facebook: (h) => `https://www.facebook.com/${h}`,
  linkedin: (h) => `https://www.linkedin.com/in/${h}`,
  reddit: (h) => `https://www.reddit.com/user/${h}`,
};

const KIND_OF_BARE: Record<Network, MentionKind> = {
  instagram: 'user',
  tiktok: 'user',
  youtube: 'channel',
  x: 'user',
  facebook: 'page',
  linkedin: 'user',
  reddit: 'user',
};

/** Networks whose handles are case-insensitive: the canonical handle is lower case. */
const CASE_INSENSITIVE = new Set<Network>(['instagram', 'tiktok', 'x', 'youtube']);

const bare = (network: Network, raw: string): MentionReference => {
  const handle = CASE_INSENSITIVE.has(network) ? raw.toLowerCase() : raw;
  return { network, kind: KIND_OF_BARE[network], handle, url: PROFILE_URL[network](handle) };
};

/** What a handle may be once decoded: letters, digits, `.`, `_`, `-` (no `/`, `%`, spaces or controls). */
const HANDLE = /^[\p{L}\p{N}._-]{1,100}$/u;

/**
 * A path segment as a handle: percent-decoded, without a leading `@`, or null when it cannot
 * be decoded (`%`, `%E0%A4`) or is not a handle once decoded. A mention that names no valid
 * handle resolves to no match; it never reaches the output as garbage (or as a 500).
 */
function handleOf(segment: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    return null;
  }
  const handle = decoded.replace(/^@/, '');
  return HANDLE.test(handle) ? handle : null;
}

const kindOf = (network: Network, kind: MentionKind, segment: string, url: (handle: string) => string): MentionReference | null => {
  const handle = handleOf(segment);
  return handle === null ? null : { network, kind, handle, url: url(handle) };
};

const bareOf = (network: Network, segment: string): MentionReference | null => {
  const handle = handleOf(segment);
  return handle === null ? null : bare(network, handle);
};

function fromUrl(text: string): MentionReference | null {
  let url: URL;
  try {
    url = new URL(/^https?:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    return null;
  }
  const host = url.hostname.toLowerCase().replace(/^(www|m|mobile)\./, '');
  const segments = url.pathname.split('/').filter(Boolean);
  const [first = '', second = ''] = segments;
  if (!first) return null;
  switch (host) {
    case 'instagram.com':
      return bareOf('instagram', first);
    case 'tiktok.com':
      return first.startsWith('@') ? bareOf('tiktok', first) : null;
    case 'youtube.com':
      if (first.startsWith('@')) return bareOf('youtube', first);
      if ((first === 'channel' || first === 'c' || first === 'user') && second) {
        return kindOf('youtube', 'channel', second, (handle) => `https://www.youtube.com/${first}/${handle}`);
      }
      return null;
    case 'x.com':
    case 'twitter.com':
      return bareOf('x', first);
    case 'facebook.com':
    case 'fb.com':
      if (first === 'groups' && second) return kindOf('facebook', 'group', second, (handle) => `https://www.facebook.com/groups/${handle}`);
      return bareOf('facebook', first);
    case 'linkedin.com':
      if (first === 'company' && second) {
        return kindOf('linkedin', 'company', second, (handle) => `https://www.linkedin.com/company/${handle}`);
      }
      return first === 'in' && second ? bareOf('linkedin', second) : null;
    case 'reddit.com':
      if (first === 'r' && second) return kindOf('reddit', 'subreddit', second, (handle) => `https://www.reddit.com/r/${handle}`);
      return (first === 'u' || first === 'user') && second ? bareOf('reddit', second) : null;
    default:
      return null;
  }
}

export interface ParsedMention {
  match: MentionReference | null;
  candidates: MentionReference[];
}

/**
 * A URL names its network; "r/x" and "u/x" are Reddit; a bare "@x" or "x" is taken on `hint`,
 * and without one it is ambiguous: every network where it is a valid handle is a candidate.
 */
export function parseMention(mention: string, hint?: Network): ParsedMention {
  const text = mention.trim();
  const reddit = /^\/?(r|u)\/([A-Za-z0-9_-]{2,21})\/?$/.exec(text);
  if (reddit) {
    const [, kind, name = ''] = reddit;
    const match: MentionReference =
      kind === 'r' ? { network: 'reddit', kind: 'subreddit', handle: name, url: `https://www.reddit.com/r/${name}` } : bare('reddit', name);
    return { match, candidates: [] };
  }
  if (/^(https?:\/\/)?([a-z0-9-]+\.)*(instagram|tiktok|youtube|x|twitter|facebook|fb|linkedin|reddit)\.com(\/|$)/i.test(text)) {
    return { match: fromUrl(text), candidates: [] };
  }
  const handle = /^@?([A-Za-z0-9._-]{1,100})$/.exec(text)?.[1];
  if (!handle) return { match: null, candidates: [] };
  if (hint) return { match: bare(hint, handle), candidates: [] };
  const networks = NETWORKS;
  return { match: null, candidates: networks.map((network) => bare(network, handle)) };
}
