/**
 * AWS Signature Version 4 for fetch requests: {@link signRequest} returns the headers to send,
 * `authorization`, `x-amz-date` and `x-amz-security-token` included. It follows AWS's signing
 * process (header signing, `AWS4-HMAC-SHA256`) as `@smithy/signature-v4` implements it for every
 * service but S3. It runs on `node:crypto` where the runtime hands it out (Deno 2, Node 20.16+,
 * Bun: `process.getBuiltinModule`, no import a bundler would see), and on the Web Crypto API
 * elsewhere (browsers, workers, Deno 1); the npm build uses `node:crypto` on Node and Bun.
 *
 * @example Sign a GraphQL request to an AppSync-shaped endpoint
 * ```ts
 * import { signRequest } from "@seed/service-client/sigv4";
 *
 * const url = "https://example.appsync-api.us-east-1.amazonaws.com/graphql";
 * const body = JSON.stringify({ query: "{ __typename }" });
 * const headers = await signRequest(
 *   { method: "POST", url, headers: { "content-type": "application/json; charset=UTF-8" }, body },
 *   {
 *     region: "us-east-1",
 *     service: "appsync",
 *     credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" },
 *   },
 * );
 * console.log(headers.get("authorization")?.startsWith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")); // true
 * ```
 *
 * @module
 */

import { digest, hmacKey } from "./crypto.ts";
import { signer } from "./sigv4_signer.ts";

/**
 * AWS credentials: an access key pair, and the session token that comes with temporary ones.
 *
 * @example Temporary credentials, as STS or a Cognito identity pool hands them out
 * ```ts
 * import type { AwsCredentials } from "@seed/service-client/sigv4";
 *
 * const credentials: AwsCredentials = {
 *   accessKeyId: "ASIAEXAMPLE",
 *   secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
 *   sessionToken: "token",
 * };
 * console.log(credentials.accessKeyId.startsWith("ASIA")); // true
 * ```
 */
export interface AwsCredentials {
  /** The access key ID (`AKIA…`, or `ASIA…` for temporary credentials). */
  accessKeyId: string;
  /** The secret access key. It signs, and is never sent. */
  secretAccessKey: string;
  /** The session token of temporary credentials (STS, identity pools); sent as `x-amz-security-token`. */
  sessionToken?: string | undefined;
  /** When temporary credentials expire: the AWS SDK's credentials carry it. Accepted, not used. */
  expiration?: Date | undefined;
  /** The AWS SDK's credential scope. Accepted, not used. */
  credentialScope?: string | undefined;
  /** The AWS SDK's account ID. Accepted, not used. */
  accountId?: string | undefined;
}

/**
 * What to sign for, and with what.
 *
 * @example Sign for AppSync in eu-west-1 at a fixed time
 * ```ts
 * import { type SignOptions, signRequest } from "@seed/service-client/sigv4";
 *
 * const options: SignOptions = {
 *   region: "eu-west-1",
 *   service: "appsync",
 *   credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret" },
 *   date: new Date("2024-01-02T03:04:05Z"),
 * };
 * const headers = await signRequest({ method: "GET", url: "https://api.example.com/graphql" }, options);
 * console.log(headers.get("authorization")?.includes("/20240102/eu-west-1/appsync/aws4_request,")); // true
 * ```
 */
export interface SignOptions {
  /** The region of the endpoint, for instance `us-east-1`. Required: never guessed from the host. */
  region: string;
  /** The signing name of the service, for instance `appsync`. Required: never guessed from the host. */
  service: string;
  /** The credentials to sign with. */
  credentials: AwsCredentials;
  /** The signing time; the current time by default. AWS rejects signatures more than 5 minutes off. */
  date?: Date | undefined;
}

/**
 * The parts of a fetch request that SigV4 signs.
 *
 * @example A GraphQL POST, signed then sent with the same method, URL and body
 * ```ts
 * import { type SignableRequest, signRequest } from "@seed/service-client/sigv4";
 *
 * const request: SignableRequest = {
 *   method: "POST",
 *   url: "https://api.example.com/graphql",
 *   headers: { "content-type": "application/json; charset=UTF-8" },
 *   body: JSON.stringify({ query: "{ __typename }" }),
 * };
 * const headers = await signRequest(request, {
 *   region: "us-east-1",
 *   service: "appsync",
 *   credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret" },
 * });
 * console.log(headers.get("authorization")?.includes("SignedHeaders=content-type;host;x-amz-date,")); // true
 * // await fetch(request.url, { method: request.method, headers, body: request.body });
 * ```
 */
export interface SignableRequest {
  /** The HTTP method, for instance `POST`; `delete`, `get`, `head`, `options`, `post`, `put` are uppercased, as fetch does. */
  method: string;
  /** The absolute URL the request goes to. Its host (with a non-default port) is signed. */
  url: string | URL;
  /**
   * The headers that will be sent (a `Headers`, a record or name/value pairs: what `new Headers()`
   * takes, named so that Node projects without the DOM types compile); all are signed but the ones
   * proxies and browsers may change.
   */
  headers?: ConstructorParameters<typeof Headers>[0] | undefined;
  /** The body, exactly as it will be sent; none means empty. */
  body?: string | undefined;
}

/**
 * Signs a request with AWS Signature Version 4 and returns every header to send: the given ones,
 * plus `authorization`, `x-amz-date`, and `x-amz-security-token` when the credentials carry a
 * session token. Sign last: a header added afterwards is not covered by the signature.
 *
 * Signed: `host` (from the URL, with its port unless default), `x-amz-date`, the session token,
 * and every given header except `authorization`, `cache-control`, `connection`, `expect`, `from`,
 * `keep-alive`, `max-forwards`, `pragma`, `referer`, `te`, `trailer`, `transfer-encoding`,
 * `upgrade`, `user-agent`, `x-amzn-trace-id`, `proxy-*` and `sec-*` (the headers
 * `@smithy/signature-v4` leaves unsigned). In a browser, give none of the headers a page may not set
 * (`origin`, `cookie`, `accept-encoding`, …; the Fetch standard's forbidden request headers): they
 * would be signed, then dropped or replaced by the browser, and the signature refused. A given
 * `host`, `date` or `authorization` is dropped; a given `x-amz-content-sha256` is signed and stands
 * for the body's hash, as in every AWS SDK.
 * The path is signed as `URL.pathname` gives it (dot segments resolved), without empty segments
 * and encoded twice, as for every AWS service but S3; the query's keys and values are signed with
 * their `%XX` escapes decoded and a `+` read as a plus sign, as AWS reads them (`?filter=a+b` as
 * `filter=a%2Bb`; write `%20` for a space), not as `URL.searchParams` reads them. The method is
 * signed as fetch sends it: `delete`, `get`, `head`, `options`, `post` and `put` uppercased, any
 * other as given.
 *
 * Derived signing keys are cached per secret key, day, region and service (20 at most), as
 * non-extractable `CryptoKey`s on Web Crypto.
 *
 * @param request The request to sign: method, absolute URL, headers and body as they will be sent.
 * @param options The region and service to sign for (never guessed), the credentials, and the time.
 * @returns The headers to send with the request.
 * @throws {TypeError} (as a rejection) with `code: "INVALID_ARGUMENT"` when the secret access key or
 * the method is missing or empty; the region, the service or the access key ID is not a non-empty
 * string of letters, digits, `_` and `-` (they go into the credential scope and the Authorization
 * header: a `/`, a space or a comma would make a signature no server can check); the date is not a
 * valid `Date` of the years 0 to 9999; the body is not a string; the URL is not absolute or a header
 * is one `Headers` refuses; and `Invalid credentials` when the session token holds what `Headers`
 * refuses (NUL, CR, LF, or a character beyond Latin-1). The message is `Invalid <field>` (`Invalid
 * region`, `Invalid url`, …): it never quotes a value, so no key, token or signature can leak. A
 * value `Headers` takes but `fetch` refuses (another control character) is signed, and `fetch` then
 * fails. Signing needs `node:crypto` (Deno 2, Node 20.16+, Bun) or Web Crypto, which browsers give
 * to secure pages only (https, localhost): without either, the promise rejects with the runtime's
 * own error. The headers are read as the global `Headers` gives them, lowercase, trimmed and sorted:
 * under a polyfill that keeps them as given (whatwg-fetch's, in some test setups), signatures come
 * out wrong.
 *
 * @example Sign an AppSync request with temporary credentials, then send it
 * ```ts
 * import { signRequest } from "@seed/service-client/sigv4";
 *
 * const url = new URL("https://api.example.com/graphql");
 * const body = JSON.stringify({ query: "query { me { id } }" });
 * const headers = await signRequest(
 *   { method: "POST", url, headers: { "content-type": "application/json; charset=UTF-8" }, body },
 *   {
 *     region: "eu-west-1",
 *     service: "appsync",
 *     credentials: { accessKeyId: "ASIAEXAMPLE", secretAccessKey: "secret", sessionToken: "token" },
 *     date: new Date("2024-01-02T03:04:05Z"),
 *   },
 * );
 * console.log(headers.get("x-amz-date")); // "20240102T030405Z"
 * console.log(headers.get("x-amz-security-token")); // "token"
 * // await fetch(url, { method: "POST", headers, body });
 * ```
 */
export const signRequest: (request: SignableRequest, options: SignOptions) => Promise<Headers> =
  /* @__PURE__ */ signer(hmacKey, digest);
