/**
 * The Prometheus base URL, checked once: an http(s) URL whose `user:password@` (if any) decodes. Every
 * message quotes the URL with its userinfo masked, and the password is registered with the redactor
 * before the URL is even parsed, so a bad port or a bad percent-escape cannot print it.
 */
import { BadInputError } from '../../errors/bad-input.js';
import { displayUrl, secrets } from '../../security/redact.js';
import { errorMessage } from '../../errors/message.js';

/** What the URL is expected to be, for messages. */
const EXPECTED = 'an http(s) URL such as http://prometheus:9090';

/** The URL split into a credential-free base and the basic-auth credentials it carried. */
export interface PrometheusUrl {
  base: URL;
  basic?: { username: string; password: string } | undefined;
}

function decode(part: string, what: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new Error(`the ${what} in it has a bad percent-escape (expected %XX with two hex digits)`);
  }
}

/** Why `raw` is not a usable Prometheus URL, or undefined when it is. Never quotes the userinfo. */
export function prometheusUrlProblem(raw: string): string | undefined {
  try {
    parse(raw);
    return undefined;
  } catch (error) {
    return errorMessage(error);
  }
}

function parse(raw: string): PrometheusUrl {
  let base: URL;
  try {
    base = new URL(raw);
  } catch (error) {
    // Node's message quotes the input; ours says what is wrong without it.
    const code = (error as { code?: string }).code;
    throw new Error(
      code === 'ERR_INVALID_URL'
        ? 'it is not a valid URL (check the host and port)'
        : 'it is not a valid URL',
    );
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new Error(`its scheme is ${base.protocol.replace(/:$/, '')}, not http or https`);
  let basic: PrometheusUrl['basic'];
  if (base.username || base.password) {
    basic = {
      username: decode(base.username, 'user name') ?? '',
      password: decode(base.password, 'password') ?? '',
    };
    base.username = '';
    base.password = '';
  }
  return { base, basic };
}

/**
 * Parses a Prometheus URL for use. Registers its password first; throws {@link BadInputError} (exit 2)
 * naming the setting, the masked URL and what is expected.
 */
export function parsePrometheusUrl(raw: string, setting = 'prometheus-url'): PrometheusUrl {
  secrets.addUrl(raw);
  try {
    const parsed = parse(raw);
    if (parsed.basic) secrets.add(parsed.basic.password);
    return parsed;
  } catch (error) {
    throw new BadInputError(`${setting} '${displayUrl(raw)}': ${errorMessage(error)}; expected ${EXPECTED}`);
  }
}
