/**
 * Differential test against `@smithy/signature-v4` (the AWS SDK's signer, with `@smithy/hash-node`
 * and `applyChecksum: false`): for generated AppSync-shaped requests, the headers we return must be
 * the headers smithy returns, byte for byte, on both crypto variants.
 *
 * Requests come from a seeded generator. Replay a run with `SIGV4_SEED=<seed>` (printed in the test
 * name and on failure) and change its size with `SIGV4_CASES=<n>`.
 *
 * Smithy gets what an SDK client would give it for the same fetch request: the URL's host (with a
 * non-default port) as `host`, the URL's path as sent, and its query as decoded pairs, read as the
 * SDK's URL parser and the AWS Common Runtime read it: `%XX` escapes decoded, a `+` kept as a plus
 * sign. Generated queries hold `+`, `%20` and `%2B` in keys and values.
 *
 * Every signer variant is checked: `signRequest`, and the signer and the client's record signer on
 * each crypto variant (`crypto.ts` as loaded here, `crypto.ts` on Web Crypto under Deno, and
 * `crypto_node.ts`), each with both of its pairs of primitives.
 *
 * @module
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import {
  ALWAYS_UNSIGNABLE_HEADERS,
  PROXY_HEADER_PATTERN,
  SEC_HEADER_PATTERN,
  SignatureV4,
} from "@smithy/signature-v4";
import { Hash } from "@smithy/hash-node";
import * as webPrimitives from "../src/crypto.ts";
import { webCryptoCopy } from "./_crypto_variants.ts";
import type { Digest, KeyMaker } from "../src/crypto.ts";
import * as nodePrimitives from "../src/crypto_node.ts";
import * as webOnly from "../src/crypto_web.ts";
import { type AwsCredentials, type SignableRequest, type SignOptions, signRequest } from "../src/sigv4.ts";
import { type RecordSigner, recordSigner, type Signer, signer } from "../src/sigv4_signer.ts";
import { UNSIGNABLE_HEADER } from "../src/sigv4_signer.ts";

const SEED = Number(process.env.SIGV4_SEED ?? Math.floor(Math.random() * 2 ** 32));
const CASES = Number(process.env.SIGV4_CASES ?? 2000);

/** Signs with smithy as an SDK client would, and returns the headers fetch would send. */
async function signWithSmithy(request: SignableRequest, options: SignOptions): Promise<Headers> {
  const url = new URL(request.url);
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of queryPairs(url.search)) {
    const seen = query[key];
    query[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  const headers: Record<string, string> = { host: url.host, ...request.headers as Record<string, string> };
  const signer = new SignatureV4({
    service: options.service,
    region: options.region,
    credentials: options.credentials as { accessKeyId: string; secretAccessKey: string },
    sha256: Hash.bind(null, "sha256"),
    applyChecksum: false,
  });
  const signed = await signer.sign({
    method: request.method,
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query,
    headers,
    ...(request.body === undefined ? {} : { body: request.body }),
  }, { signingDate: options.date! });
  const sent = new Headers(signed.headers as Record<string, string>);
  assert.equal(sent.get("host"), url.host);
  sent.delete("host"); // fetch sets it from the URL
  return sent;
}

/** A query's pairs as AWS reads them: split on `&` and the first `=`, `%XX` decoded, `+` left alone. */
function queryPairs(search: string): [string, string][] {
  return search.slice(1).split("&").filter(Boolean).map((pair) => {
    const at = pair.indexOf("=");
    const [key, value] = at < 0 ? [pair, ""] : [pair.slice(0, at), pair.slice(at + 1)];
    return [decodeURIComponent(key), decodeURIComponent(value)];
  });
}

/** Mulberry32: a tiny seeded generator of floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), state | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 2 ** 32;
  };
}

const REGIONS = ["us-east-1", "eu-west-2", "ap-southeast-2", "us-gov-west-1", "cn-north-1", "il-central-1"];
const CUSTOM_HOSTS = ["api.example.com", "graphql.example.co.uk", "bücher.example", "127.0.0.1"];
// A few paths that need normalizing or encoding ("|"-separated); most requests go to /graphql.
const PATHS = ("/graphql/|/v1/graphql|//graphql|/./graphql|/x/../graphql|/a b/graphql|/\u1234/graphql|" +
  "/%7Euser/graphql|/!$&'()*+,;=:@/graphql|/").split("|");
// Pieces of text ("|"-separated): ASCII, reserved characters, whitespace, Latin-1, CJK, emoji, combining marks.
const TEXT =
  "a|Z|0| |  |-|_|.|~|!|*|'|(|)|+|&|=|/|?|#|%|\"|\\|<|>|é|ß|ü|\u00a0|中文|日本語|😀|👩‍💻|e\u0301|\u2028|\t|\n|"
    .split("|");
// Pieces of header values: runs of spaces and tabs, separators, Latin-1 (all a Headers object takes).
const HEADER_TEXT = 'a|Z|9| |   |\t|-|,|;|=|"|/|(|)|é|ÿ|\u00a0|~'.split("|");
const EXTRA_HEADERS = (
  "accept accept-language x-amz-user-agent x-request-id origin x-custom-a X-Custom-B x-amz-security-token " +
  "x-amz-date date authorization x-amz-content-sha256 user-agent User-Agent cache-control pragma referer " +
  "x-amzn-trace-id proxy-foo Sec-Fetch-Site te expect from keep-alive max-forwards trailer upgrade connection " +
  "transfer-encoding proxy sec tes"
).split(" ");
// Pieces of hand-written queries ("|"-separated): plus signs and spaces in their three spellings.
const QUERY_TEXT = "a|Z|0|+|++|%20|%2B|%2b|-|_|.|~|%3D|%26|%C3%A9|*".split("|");
const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** A request and options, as the client would sign them for an AppSync-shaped endpoint. */
export interface GeneratedCase {
  request: SignableRequest & { headers: Record<string, string> };
  options: SignOptions & { date: Date };
}

/** Draws one AppSync-shaped request from `random`. */
export function generateRequest(random: () => number): GeneratedCase {
  const int = (below: number) => Math.floor(random() * below);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!;
  const chance = (probability: number) => random() < probability;
  const chars = (alphabet: string, length: number) =>
    Array.from({ length }, () => alphabet[int(alphabet.length)]).join("");
  const text = (parts: readonly string[], most: number) =>
    Array.from({ length: int(most + 1) }, () => pick(parts)).join("");

  const region = pick(REGIONS);
  const host = chance(0.5)
    ? `${chars("abcdefghijklmnopqrstuvwxyz", 26)}.appsync-api.${region}.amazonaws.com`
    : pick(CUSTOM_HOSTS);
  const port = chance(0.6) ? "" : `:${pick(["443", "80", "8443", String(1 + int(65535))])}`;
  const path = chance(0.6) ? "/graphql" : pick(PATHS);
  const url = new URL(`${chance(0.9) ? "https" : "http"}://${host}${port}${path}`);
  if (chance(0.3)) {
    // URLSearchParams writes a space as "+" and a plus sign as "%2B".
    for (let n = 1 + int(4); n > 0; n--) url.searchParams.append(text(TEXT, 4), text(TEXT, 6));
  } else if (chance(0.15)) {
    // Written by hand: a raw "+" (a plus sign to AWS), "%20" (a space) and "%2B" (a plus sign).
    const piece = () => text(QUERY_TEXT, 4);
    url.search = Array.from({ length: 1 + int(4) }, () => piece() + (chance(0.8) ? "=" + piece() : "")).join(
      "&",
    );
  } else if (chance(0.05)) {
    url.search = pick(["?a", "?=x", "?a=1&a=", "?b=2&a=1&a=0", "?x=%F0%9F%98%80"]);
  }

  const method = chance(0.9) ? "POST" : "GET";
  const headers: Record<string, string> = {};
  if (method === "POST") headers[pick(["content-type", "Content-Type"])] = "application/json; charset=UTF-8";
  const seen = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  for (let n = int(5); n > 0; n--) {
    const name = pick(EXTRA_HEADERS);
    if (seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    headers[name] = name === "x-amz-content-sha256" ? chars("0123456789abcdef", 64) : text(HEADER_TEXT, 12);
  }

  const value = (depth: number): unknown => {
    switch (int(depth > 1 ? 4 : 7)) {
      case 0:
        return text(TEXT, 8);
      case 1:
        return "";
      case 2:
        return random() * 1e6 - 5e5;
      case 3:
        return pick([true, false, null]);
      case 4:
        return Array.from({ length: int(4) }, () => value(depth + 1));
      default:
        return Object.fromEntries(Array.from({ length: int(5) }, () => [text(TEXT, 5), value(depth + 1)]));
    }
  };
  const body = method === "GET"
    ? undefined
    : chance(0.03)
    ? pick(["", "\ud800 lone surrogate", "not json: é 😀"])
    : JSON.stringify({
      query: `query Q${int(100)} { item(id: "${text(TEXT, 6)}") { id name } }`,
      variables: value(0),
    });

  const secrets = ["wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "another/secret+key", "clé secrète 😀"];
  const credentials: AwsCredentials = {
    accessKeyId: `${pick(["AKIA", "ASIA"])}${chars(ALPHANUMERIC, 16)}`,
    secretAccessKey: chance(0.5) ? pick(secrets) : chars(BASE64, 40),
  };
  if (chance(0.5)) credentials.sessionToken = chars(BASE64, 100 + int(300));
  else if (chance(0.1)) credentials.sessionToken = "";

  const start = Date.UTC(2000, 0, 1);
  const span = Date.UTC(2038, 0, 1) - start;
  let time = start + Math.floor(random() * span);
  const aroundMidnight = chance(0.3); // a second draw only when this one fails, as before
  if (aroundMidnight) time = time - (time % 86_400_000) + int(3000) - 1500; // around midnight UTC
  else if (chance(0.3)) time = Date.UTC(2024, 1, 29) + int(3) * 86_400_000; // few days: keys are reused
  const request = body === undefined
    ? { method, url: url.href, headers }
    : { method, url: url.href, headers, body };
  return { request, options: { region, service: "appsync", credentials, date: new Date(time) } };
}

/** A signer and the client's record signer on one pair of primitives. */
interface Variant {
  label: string;
  sign: Signer;
  /** One instance for every case, so that its URL and date caches see changing URLs and dates. */
  signRecord: RecordSigner;
}

/** What `crypto.ts` runs on here: `node:crypto` answers synchronously (Node 18 has neither). */
const loadedOn =
  globalThis.crypto?.subtle || typeof (globalThis as { process?: { getBuiltinModule?: unknown } }).process
        ?.getBuiltinModule == "function"
    ? webPrimitives.hmacKey("probe") instanceof Promise ? "Web Crypto" : "node:crypto"
    : "Web Crypto";
const webCopy = await webCryptoCopy();
const variants: Variant[] = [];
for (
  const [label, module] of [
    [
      `crypto.ts (${loadedOn}, as loaded here)`,
      loadedOn == "node:crypto" || globalThis.crypto?.subtle ? webPrimitives : undefined,
    ],
    ["crypto.ts on Web Crypto (a second copy)", webCopy],
    ["crypto_node.ts", nodePrimitives],
    ["crypto_web.ts (the npm package's web build)", globalThis.crypto?.subtle ? webOnly : undefined],
  ] as const
) {
  if (!module) continue;
  for (
    const [pair, hmacKey, digest] of [
      ["hmacKey/digest", module.hmacKey, module.digest],
      ["fastHmacKey/fastDigest", module.fastHmacKey, module.fastDigest],
    ] as const
  ) {
    variants.push({
      label: `${label}, ${pair}`,
      sign: signer(hmacKey as KeyMaker<unknown>, digest as Digest<unknown>),
      signRecord: recordSigner(hmacKey as KeyMaker<unknown>, digest as Digest<unknown>),
    });
  }
}

/** Signs `request` as ServiceClient does: headers as a record (lower-case, normalized), no host. */
async function signAsClient(
  signRecord: RecordSigner,
  request: SignableRequest,
  options: SignOptions,
): Promise<[string, string][]> {
  const given = new Headers(request.headers);
  given.delete("host");
  const signed = await signRecord(
    String(request.url),
    Object.fromEntries(given),
    request.body ?? "",
    options,
  );
  return Object.entries(signed).sort(([a], [b]) => (a < b ? -1 : 1));
}

function describeCase(request: SignableRequest, options: SignOptions): string {
  const { credentials, ...rest } = options;
  return JSON.stringify({
    request,
    options: { ...rest, credentials: { ...credentials, secretAccessKey: "…" } },
  });
}

describe("differential against @smithy/signature-v4", () => {
  it(`${CASES} generated AppSync-shaped requests sign as smithy signs them (SIGV4_SEED=${SEED})`, async () => {
    const random = mulberry32(SEED);
    let recordCases = 0;
    for (let index = 0; index < CASES; index++) {
      const { request, options } = generateRequest(random);
      const expected = [...await signWithSmithy(request, options)];
      try {
        assert.deepEqual([...await signRequest(request, options)], expected, "signRequest");
        for (const { label, sign, signRecord } of variants) {
          assert.deepEqual([...await sign(request, options)], expected, `the signer on ${label}`);
          if (request.method.toUpperCase() === "POST") {
            assert.deepEqual(
              await signAsClient(signRecord, request, options),
              expected,
              `the client's record signer on ${label}`,
            );
          }
        }
        if (request.method.toUpperCase() === "POST") recordCases++;
      } catch (error) {
        const replay = `SIGV4_SEED=${SEED} SIGV4_CASES=${index + 1}`;
        throw new Error(
          `Case ${index} differs from smithy (replay: ${replay}): ${describeCase(request, options)}`,
          {
            cause: error,
          },
        );
      }
    }
    assert.ok(recordCases >= CASES / 2, `the record signer checked ${recordCases} POST cases of ${CASES}`);
  });

  it("leaves unsigned exactly the headers smithy leaves unsigned", () => {
    for (const name of Object.keys(ALWAYS_UNSIGNABLE_HEADERS)) assert.ok(UNSIGNABLE_HEADER.test(name), name);
    assert.equal(PROXY_HEADER_PATTERN.source, "^proxy-");
    assert.equal(SEC_HEADER_PATTERN.source, "^sec-");
    const lookalikes = [
      "proxy",
      "sec",
      "x-proxy-a",
      "x-sec-a",
      "tes",
      "t",
      "user-agents",
      "x-amzn-trace",
      "fromage",
    ];
    for (const name of [...lookalikes, "content-type", "x-amz-date", "x-api-key", "host"]) {
      assert.ok(!UNSIGNABLE_HEADER.test(name), name);
    }
    for (const name of ["proxy-authorization", "proxy-", "sec-fetch-mode", "sec-"]) {
      assert.ok(UNSIGNABLE_HEADER.test(name), name);
    }
    // The same list, no more: every name our pattern accepts without a prefix is in smithy's list.
    const listed = UNSIGNABLE_HEADER.source.match(/\|\(([^()]*)\)\$\)$/)![1]!.split("|");
    assert.deepEqual(listed.sort(), Object.keys(ALWAYS_UNSIGNABLE_HEADERS).sort());
  });

  const credentials: AwsCredentials = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret/key+example" };
  const date = new Date("2024-02-29T23:59:59.999Z");
  const cases: [string, SignableRequest][] = [
    ["a custom domain with a port signs host:port", {
      method: "POST",
      url: "https://api.example.com:8443/graphql",
    }],
    ["a default port is left out of host", { method: "POST", url: "https://api.example.com:443/graphql" }],
    ["a percent-encoded path is encoded once more", {
      method: "GET",
      url: "https://h.example/a%20b/%E1%88%B4/c",
    }],
    ["dot segments and empty segments are dropped", { method: "GET", url: "https://h.example//a/./b//c/" }],
    ["a query is sorted by key, then value", {
      method: "GET",
      url: "https://h.example/?b=2&a=2&a=1&a-b=0&%F0%9F%98%80=x",
    }],
    ["a + in query keys and values is a plus sign, as %2B is", {
      method: "GET",
      url: "https://h.example/graphql?filter=a+b&c+d=1&e=%2B&f=a%20b&g+=+&%2B=x+y+z",
    }],
    ["a + and %20 in the same query", {
      method: "POST",
      url: "https://h.example/graphql?q=a+b%20c&q=a%2Bb+c",
    }],
    ["unsignable headers are sent but not signed", {
      method: "POST",
      url: "https://h.example/graphql",
      headers: {
        "User-Agent": "ua",
        "cache-control": "no-cache",
        "sec-fetch-mode": "cors",
        "x-amzn-trace-id": "t",
      },
      body: "{}",
    }],
    ["date and authorization given are dropped, x-amz-date is replaced", {
      method: "POST",
      url: "https://h.example/graphql",
      headers: {
        date: "Thu, 01 Jan 1970 00:00:00 GMT",
        authorization: "Bearer x",
        "x-amz-date": "19700101T000000Z",
      },
    }],
    ["a given x-amz-content-sha256 stands for the body's hash", {
      method: "POST",
      url: "https://h.example/graphql",
      headers: { "x-amz-content-sha256": "UNSIGNED-PAYLOAD" },
      body: "{}",
    }],
    ["header values have runs of spaces and tabs collapsed", {
      method: "POST",
      url: "https://h.example/graphql",
      headers: { "x-a": "  a \t\t b   c  ", "x-b": "" },
    }],
  ];
  it("signs ?filter=a+b as ?filter=a%2Bb, and not as ?filter=a%20b", async () => {
    const options = { region: "eu-west-1", service: "appsync", credentials, date };
    const at = async (query: string) =>
      (await signRequest({ method: "GET", url: `https://h.example/graphql?${query}` }, options)).get(
        "authorization",
      );
    assert.equal(await at("filter=a+b"), await at("filter=a%2Bb"));
    assert.notEqual(await at("filter=a+b"), await at("filter=a%20b"));
    assert.equal(await at("a+b=1"), await at("a%2Bb=1"));
    assert.notEqual(await at("a+b=1"), await at("a%20b=1"));
    for (const { label, signRecord } of variants) {
      const url = "https://h.example/graphql?filter=a+b";
      const plus = await signRecord(url, {}, "", options);
      const encoded = await signRecord("https://h.example/graphql?filter=a%2Bb", {}, "", options);
      assert.equal(plus.authorization, encoded.authorization, label);
    }
  });

  for (const [name, request] of cases) {
    it(name, async () => {
      for (const sessionToken of [undefined, "token"]) {
        const options = {
          region: "eu-west-1",
          service: "appsync",
          credentials: { ...credentials, sessionToken },
          date,
        };
        assert.deepEqual([...await signRequest(request, options)], [
          ...await signWithSmithy(request, options),
        ]);
      }
    });
  }
});
