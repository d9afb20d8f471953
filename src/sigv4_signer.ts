/**
 * SigV4 request signing (header signing, `AWS4-HMAC-SHA256`) over two hashing primitives, a key
 * maker and a digest (HMAC-SHA256 under a key, SHA-256 without). `sigv4.ts` binds `signer` to
 * `crypto.ts`'s `hmacKey`/`digest`, and `iam.ts` binds `recordSigner` to its faster
 * `fastHmacKey`/`fastDigest` (the npm build maps `crypto.ts` to `crypto_node.ts`); tests and
 * benchmarks bind them to any variant.
 *
 * The rules are `@smithy/signature-v4`'s for every service but S3: the path (as `URL.pathname` gives
 * it: dot segments already resolved) loses its empty segments and is encoded once more (the "double
 * encoding" of non-S3 services); query keys and values are encoded, then sorted by key and value;
 * a `+` in the query is a plus sign, as AWS reads it (see {@link signer}); header values have runs
 * of spaces and tabs collapsed. Out of scope: S3's rules, presigned URLs, chunked payloads, event
 * streams, SigV4a.
 *
 * Every byte here ships in the signer's chunk, so the code leans on the platform: `Headers` lowercases,
 * trims, sorts and validates the headers, `URL` resolves the path and decodes the query. Primitives
 * come in one by one, so that a bundle keeps no property names. They may answer with a value (the
 * `node:crypto` variant) or a Promise; `await` takes either, and costs no measurable time on a value.
 *
 * @module
 */

import type { Digest, HmacKey, KeyMaker, MaybePromise } from "./crypto.ts";
import type { SignableRequest, SignOptions } from "./sigv4.ts";

/** The primitives the signer runs on: the exports of `crypto.ts` or `crypto_node.ts`. */
export interface SigningPrimitives<Key = HmacKey> {
  /** Turns a secret into an HMAC-SHA256 key. */
  hmacKey: KeyMaker<Key>;
  /** HMAC-SHA256 or SHA-256 (see {@link Digest}). */
  digest: Digest<Key>;
}

/** Signs a request: `signRequest` of `sigv4.ts`. */
export type Signer = (request: SignableRequest, options: SignOptions) => Promise<Headers>;

/** How many signing keys a signer keeps, one per (secret key, day, region, service), before it starts afresh. */
export const SIGNING_KEY_CACHE_LIMIT = 20;

/**
 * The headers never signed: `@smithy/signature-v4`'s always-unsignable list and its `proxy-` and
 * `sec-` prefixes (hop-by-hop headers, and headers a proxy or a browser may add or change).
 */
export const UNSIGNABLE_HEADER: RegExp =
  /^(proxy-|sec-|(authorization|cache-control|connection|expect|from|keep-alive|max-forwards|pragma|referer|te|trailer|transfer-encoding|upgrade|user-agent|x-amzn-trace-id)$)/;

/** Throws a `TypeError` with `code: "INVALID_ARGUMENT"` that names the field and never shows its value. */
const invalid: (field: string) => never = (field) => {
  const error = TypeError("Invalid " + field) as TypeError & { code: string };
  error.code = "INVALID_ARGUMENT";
  throw error;
};

/**
 * `from[field]`, which must be a non-empty string; with `word`, made of letters, digits, `_` and `-`
 * only, as regions, service names and access key IDs are: they go into the credential scope and the
 * Authorization header, where a `/`, a space, a comma or a non-ASCII letter would make a signature
 * no server can check. (`value` is a local: a parameter costs fewer bytes.)
 */
const text = <T>(from: T | undefined, field: keyof T & string, word?: 1, value?: unknown): string =>
  typeof (value = from?.[field]) == "string" && (word ? /^[\w-]+$/.test(value) : value)
    ? value
    : invalid(field);

// The last x-amz-date, and the time it was made for: formatting a date takes a tenth of a signature's
// time on Node, and a busy signer signs many requests within the same millisecond. (Without it,
// signRequest on crypto_node.ts measured 0.90x of itself with it on Node 20, and 1.95x smithy.)
let time: number, stamp: string;

/** RFC 3986 percent-encoding: `encodeURIComponent`, plus `!'()*` (`escape` encodes the first four). */
const uriEncode = (text: string) => encodeURIComponent(text).replace(/[!'()]/g, escape).replace(/\*/g, "%2A");

/**
 * The canonical path and query of `url`, on two lines. The path, as `URL.pathname` gives it (dot
 * segments resolved), loses its empty segments and is encoded once more. The query's keys and
 * values are decoded (a `+` stays a plus sign: see {@link signer}), encoded, then sorted by key and
 * value (a space sorts before any encoded character, so sorting "key value" sorts by key, then by
 * value). Without a query, no `URLSearchParams` is made: on Deno that costs a thirtieth of a signature.
 */
const target = (url: URL) =>
  uriEncode(url.pathname.replace(/\/+/g, "/")).replace(/%2F/g, "/") + "\n" + (url.search &&
    [...new URLSearchParams(url.search.replace(/\+/g, "%2B"))].map((pair) => pair.map(uriEncode).join(" "))
      .sort().join("&").replace(/ /g, "="));

/**
 * Makes a signer on the primitives given one by one. It keeps the signing keys it derives in
 * `keys`, one per secret key, day, region and service; past {@link SIGNING_KEY_CACHE_LIMIT} entries
 * it empties it, so rotating credentials cannot grow it. Its keys hold secret keys: pass a Map only
 * to watch its size in a test.
 *
 * A `+` in the query is a plus sign, not a space: `?filter=a+b` is signed as `filter=a%2Bb`, and
 * `?filter=a%20b` as `filter=a%20b`. That is how AWS reads a query: its own signers decode `%XX`
 * escapes only (the AWS Common Runtime's `aws-c-auth`, which the SDKs built on it use, and
 * `@smithy/signature-v4` with the JavaScript SDK's URL parser), RFC 3986 gives `+` no special
 * meaning, and AWS's documentation of the canonical request asks for spaces as `%20`, never `+`.
 * `URLSearchParams` alone would read `+` as a space (HTML forms' encoding) and sign `%20` where
 * the service reads a plus sign. To send a space, write `%20`.
 */
export const signer = <Key>(
  hmacKey: KeyMaker<Key>,
  digest: Digest<Key>,
  keys: Map<string, MaybePromise<Key>> = new Map(),
): Signer =>
async (request, options) => {
  const region = text(options, "region", 1);
  const service = text(options, "service", 1);
  const credentials = options.credentials;
  const accessKeyId = text(credentials, "accessKeyId", 1);
  const secret = text(credentials, "secretAccessKey");
  // As fetch sends it: the six standard methods in uppercase, any other as given.
  let method = text(request, "method");
  if (/^(delete|get|head|options|post|put)$/i.test(method)) method = method.toUpperCase();
  const body = request.body ?? "";
  if (typeof body != "string") invalid("body");
  const date = options.date ?? new Date();
  let field = "date", url: URL, headers: Headers, longDate: string;
  try {
    // An invalid Date throws here, and so does anything else without the methods of a Date.
    // (`getTime`, not `+date`: a number must fail as it would without the last date.)
    longDate = time === date.getTime()
      ? stamp
      : (stamp = date.toISOString().replace(/\.\d+|\W/g, ""), time = +date, stamp);
    field = "url";
    url = new URL(request.url);
    field = "headers";
    headers = new Headers(request.headers);
    // Headers refuses a value no header can carry with a message that quotes it (here, the token).
    field = "credentials";
    if (credentials.sessionToken) headers.set("x-amz-security-token", credentials.sessionToken);
  } catch {
    // The native message may quote the URL or a header value: it must not reach the caller.
    invalid(field);
  }
  // A year past 9999 or before 0 (a timestamp in microseconds, say) makes a longer x-amz-date.
  if (longDate[16]) invalid("date");
  // Hashed now, while the headers are worked out: on Web Crypto the hash runs off the main thread. (Also
  // when a given x-amz-content-sha256 makes it unneeded: that is rare, and a check costs bytes.)
  const bodyHash = digest(0, body, 1);
  const scope = `${longDate.slice(0, 8)}/${region}/${service}/aws4_request`;
  // The signing key, derived once per secret and scope. (Written out here and in recordSigner: as a
  // function shared by both it costs each bundle 23 bytes.) Their concatenation names both: the
  // scope is its last four parts, and only the secret may hold a "/".
  let signingKey = keys.get(secret + scope);
  if (!signingKey) {
    if (keys.size >= SIGNING_KEY_CACHE_LIMIT) keys.clear();
    keys.set(
      secret + scope,
      signingKey = scope.split("/").reduce(
        async (key: MaybePromise<Key>, part) => hmacKey(await digest(await key, part)),
        hmacKey("AWS4" + secret),
      ),
    );
  }

  // As smithy does, drop `date`. `host` is the URL's (the one fetch sends), signed but not returned.
  // Headers iterate lowercase, trimmed and sorted: the canonical headers are read off them.
  headers.delete("date");
  headers.set("x-amz-date", longDate);
  headers.set("host", url.host);
  let lines = "", names = "";
  headers.forEach((value, name) => {
    if (!UNSIGNABLE_HEADER.test(name)) {
      lines += name + ":" + value.replace(/[ \t]+/g, " ") + "\n";
      names += (names && ";") + name;
    }
  });
  headers.delete("host");

  // The canonical request: the method, path and query, the headers, their names, and the payload hash,
  // for which a given x-amz-content-sha256 stands, as in every AWS SDK.
  const signature = await digest(
    await signingKey,
    `AWS4-HMAC-SHA256\n${longDate}\n${scope}\n${await digest(
      0,
      `${method}\n${target(url)}\n${lines}\n${names}\n${
        headers.get("x-amz-content-sha256") ?? await bodyHash
      }`,
      1,
    )}`,
    1,
  );
  // Key ID, region and service are words, the names are header names: Headers cannot refuse this value.
  headers.set(
    "authorization",
    `AWS4-HMAC-SHA256 Credential=${accessKeyId}/${scope}, SignedHeaders=${names}, Signature=${signature}`,
  );
  return headers;
};

/** Makes a signer on `primitives`, the exports of `crypto.ts` or `crypto_node.ts` (see {@link signer}). */
export const createSigner = <Key>(
  primitives: SigningPrimitives<Key>,
  keys?: Map<string, MaybePromise<Key>>,
): Signer => signer(primitives.hmacKey, primitives.digest, keys);

/**
 * Signs for `ServiceClient`, on plain records: `headers` as the client builds them (lowercase names,
 * values as `Headers` normalizes them, no `host`), and the result is every header to send, SigV4's
 * included, as a new record. No `Headers` object, and the URL parsed once for as long as it stays
 * the same: on Node both cost more than the hashing. The options are trusted (the client checked
 * them when it was created).
 */
export type RecordSigner = (
  url: string,
  headers: Readonly<Record<string, string>>,
  body: string,
  options: SignOptions,
) => Promise<Record<string, string>>;

/**
 * Makes a {@link RecordSigner} on the primitives given one by one (see {@link signer}: the same
 * canonical request, key cache and reading of `+`).
 */
export const recordSigner = <Key>(
  hmacKey: KeyMaker<Key>,
  digest: Digest<Key>,
  keys: Map<string, MaybePromise<Key>> = new Map(),
): RecordSigner => {
  let href = "", host = "", path = "", second = NaN, lastDate = "";
  let layout = "", order: string[] = [], signedNames = "";
  return async (url, headers, body, { region, service, credentials, date = new Date() }) => {
    if (url !== href) {
      const parsed = new URL(url);
      href = url;
      host = parsed.host;
      path = target(parsed);
    }
    // x-amz-date has whole seconds: the text is made once a second.
    if (Math.floor(+date / 1000) !== second) {
      second = Math.floor(+date / 1000);
      lastDate = date.toISOString().replace(/\.\d+|\W/g, "");
    }
    // Another signature may change the cached parts while this one waits, and a refresh the
    // credentials object in place (an SDK's): read them now, the key ID with its secret.
    const longDate = lastDate, canonicalTarget = path, { accessKeyId, secretAccessKey: secret } = credentials;
    // Hashed first: on Web Crypto the hash runs off the main thread while the headers are worked out.
    const payloadHash = headers["x-amz-content-sha256"] ?? digest(0, body, 1);
    const scope = `${longDate.slice(0, 8)}/${region}/${service}/aws4_request`;
    let signingKey = keys.get(secret + scope);
    if (!signingKey) {
      if (keys.size >= SIGNING_KEY_CACHE_LIMIT) keys.clear();
      keys.set(
        secret + scope,
        signingKey = scope.split("/").reduce(
          async (key: MaybePromise<Key>, part) => hmacKey(await digest(await key, part)),
          hmacKey("AWS4" + secret),
        ),
      );
    }
    const sent: Record<string, string> = {};
    for (const name in headers) if (name != "date") sent[name] = headers[name]!; // as smithy does
    sent["x-amz-date"] = longDate;
    // Trimmed, as fetch would trim it (a line break is refused before): the token signed is the token sent.
    if (credentials.sessionToken) {
      sent["x-amz-security-token"] = credentials.sessionToken.trim();
    }
    // The names to sign, in order, worked out again only when the names change.
    const given = Object.keys(sent), givenNames = given.join();
    if (givenNames !== layout) {
      layout = givenNames;
      order = given.concat("host").sort().filter((name) => !UNSIGNABLE_HEADER.test(name));
      signedNames = order.join(";");
    }
    const names = signedNames;
    let lines = "";
    for (const name of order) {
      lines += name + ":" + (name == "host" ? host : sent[name]!.replace(/[ \t]+/g, " ")) + "\n";
    }
    const signature = await digest(
      await signingKey,
      `AWS4-HMAC-SHA256\n${longDate}\n${scope}\n${await digest(
        0,
        `POST\n${canonicalTarget}\n${lines}\n${names}\n${await payloadHash}`,
        1,
      )}`,
      1,
    );
    sent.authorization =
      `AWS4-HMAC-SHA256 Credential=${accessKeyId}/${scope}, SignedHeaders=${names}, Signature=${signature}`;
    return sent;
  };
};
