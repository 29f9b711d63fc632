/**
 * Whether a request's Content-Type is JSON, judged exactly as the MCP SDK's transport judges it
 * (1.32.2, shared/mediaType.js `isJsonContentType`): the media type parsed as RFC 9110 says (the
 * `content-type` package's grammar, reproduced here), never a substring; when only the parameters
 * are malformed, the type before the first `;` still counts, unless a comma after it betrays two
 * headers joined into one.
 */

// The `content-type` package's (1.0.5) token and parameter grammar.
const TYPE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const PARAMETER =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the package's qdtext and quoted-pair include \v.
  /; *([!#$%&'*+.^_`|~0-9A-Za-z-]+) *= *("(?:[\u000b\u0020\u0021\u0023-\u005b\u005d-\u007e\u0080-\u00ff]|\\[\u000b\u0020-\u00ff])*"|[!#$%&'*+.^_`|~0-9A-Za-z-]+) */y;

/** Whether everything after the media type is a run of well-formed `; name=value` parameters. */
function wellFormedParameters(header: string, from: number): boolean {
  let index = from;
  while (index < header.length) {
    PARAMETER.lastIndex = index;
    const match = PARAMETER.exec(header);
    if (!match) return false;
    index += match[0].length;
  }
  return true;
}

export function isJsonContentType(header: string | null): boolean {
  if (header === 'application/json') return true;
  if (!header) return false;
  const semicolon = header.indexOf(';');
  const type = (semicolon === -1 ? header : header.slice(0, semicolon)).trim();
  const essence = type.toLowerCase();
  if (essence !== 'application/json') return false;
  // Parsed whole: the type is JSON. Malformed parameters: the SDK falls back on the type before
  // the `;`, refusing a header whose tail has a comma (duplicate headers joined).
  if (TYPE.test(type) && (semicolon === -1 || wellFormedParameters(header, semicolon))) return true;
  return !header.slice(essence.length).includes(',');
}
