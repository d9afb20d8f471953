/**
 * `signRequest` beyond the vectors: bad input, what it returns and signs, the signing-key cache, and
 * the two crypto variants (`crypto.ts` and `crypto_node.ts`, which the npm build swaps in).
 *
 * @module
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import * as webPrimitives from "../src/crypto.ts";
import { webCryptoCopy } from "./_crypto_variants.ts";
import type { Digest, KeyMaker } from "../src/crypto.ts";
import * as nodePrimitives from "../src/crypto_node.ts";
import * as webOnly from "../src/crypto_web.ts";
import { type SignableRequest, type SignOptions, signRequest } from "../src/sigv4.ts";
import { createSigner, recordSigner, signer, SIGNING_KEY_CACHE_LIMIT } from "../src/sigv4_signer.ts";
import { invalid } from "../src/validate.ts";

const SECRET = "SENTINEL/secret+access+key";
const TOKEN = "SENTINEL-session-token";
const KEY_ID = "AKIDSENTINEL";
const HEADER_SECRET = "SENTINEL-header-value";
const URL_SECRET = "SENTINEL-in-url";
const SENTINELS = [SECRET, TOKEN, KEY_ID, HEADER_SECRET, URL_SECRET, "SENTINEL"];

const request: SignableRequest = {
  method: "POST",
  url: "https://example.appsync-api.us-east-1.amazonaws.com/graphql",
  headers: { "content-type": "application/json; charset=UTF-8" },
  body: '{"query":"{ __typename }"}',
};
const options: SignOptions = {
  region: "eu-west-1",
  service: "appsync",
  credentials: { accessKeyId: KEY_ID, secretAccessKey: SECRET, sessionToken: TOKEN },
  date: new Date("2024-05-06T07:08:09Z"),
};

/** Signs with `options` changed by `change`; JavaScript callers can pass anything. */
function signWith(
  change: (draft: Record<string, unknown>) => void,
  target: "options" | "request" = "options",
) {
  const draft = structuredClone({ request, options }) as unknown as Record<string, Record<string, unknown>>;
  change(draft[target]!);
  return signRequest(draft.request as unknown as SignableRequest, draft.options as unknown as SignOptions);
}

describe("signRequest: bad input", () => {
  const cases: [string, string, (draft: Record<string, unknown>) => void, ("options" | "request")?][] = [
    ["region", "missing", (o) => delete o.region],
    ["region", "empty", (o) => o.region = ""],
    ["service", "missing", (o) => delete o.service],
    ["service", "empty", (o) => o.service = ""],
    ["accessKeyId", "missing credentials", (o) => delete o.credentials],
    ["accessKeyId", "empty", (o) => (o.credentials as Record<string, unknown>).accessKeyId = ""],
    ["secretAccessKey", "missing", (o) => delete (o.credentials as Record<string, unknown>).secretAccessKey],
    [
      "secretAccessKey",
      "not a string",
      (o) => (o.credentials as Record<string, unknown>).secretAccessKey = 42,
    ],
    ["date", "invalid", (o) => o.date = new Date(Number.NaN)],
    ["date", "not a Date", (o) => o.date = "2024-05-06"],
    ["method", "empty", (r) => r.method = "", "request"],
    ["body", "bytes", (r) => r.body = new TextEncoder().encode(SECRET), "request"],
    ["body", "an object", (r) => r.body = { secret: SECRET }, "request"],
    ["body", "the number 0 (not read as no body)", (r) => r.body = 0, "request"],
    ["body", "false", (r) => r.body = false, "request"],
    ["url", "not a URL", (r) => r.url = `not a url ${URL_SECRET}`, "request"],
    ["url", "relative", (r) => r.url = `/graphql?${URL_SECRET}`, "request"],
    [
      "headers",
      "a value with a line break",
      (r) => r.headers = { "x-api-key": `${HEADER_SECRET}\nx` },
      "request",
    ],
    ["headers", "a value beyond Latin-1", (r) => r.headers = { "x-api-key": `${HEADER_SECRET}€` }, "request"],
    ["headers", "an invalid name", (r) => r.headers = { [`bad name ${HEADER_SECRET}`]: "x" }, "request"],
    // Values that go into headers: Headers would refuse them with a message quoting the token, or the
    // whole Authorization value, signature included.
    [
      "credentials",
      "a session token with NUL",
      (o) => (o.credentials as Record<string, unknown>).sessionToken = `${TOKEN}\0`,
    ],
    // Region, service and key ID go into the credential scope and the Authorization header: only
    // letters, digits, `_` and `-` keep both parseable (a `/` adds a scope part, a space or a comma
    // breaks the header's parameters; a trailing space from an environment variable is the usual way).
    [
      "accessKeyId",
      "with a line break",
      (o) => (o.credentials as Record<string, unknown>).accessKeyId = `${KEY_ID}\n`,
    ],
    [
      "accessKeyId",
      "with a space",
      (o) => (o.credentials as Record<string, unknown>).accessKeyId = `${KEY_ID} `,
    ],
    ["region", "with a line break", (o) => o.region = "us-east-1\nx"],
    ["region", "with a slash", (o) => o.region = "us/east-1"],
    ["region", "with a trailing space", (o) => o.region = "us-east-1 "],
    ["region", "with a comma", (o) => o.region = "us,east=1"],
    ["service", "beyond Latin-1", (o) => o.service = "appsync€"],
    ["service", "Latin-1", (o) => o.service = "äppsync"],
    ["service", "with a slash", (o) => o.service = "app/sync"],
    // x-amz-date has 8 + 6 digits: toISOString writes a year past 9999, or before 0, with six.
    ["date", "in year 10000", (o) => o.date = new Date(Date.UTC(10_000, 0, 1))],
    ["date", "a timestamp in microseconds", (o) => o.date = new Date(1_704_164_645_000_000)],
    ["date", "before year 0", (o) => o.date = new Date(Date.UTC(-1, 0, 1))],
    ["date", "a number", (o) => o.date = 1_704_164_645_000],
  ];
  for (const [field, what, change, target] of cases) {
    it(`rejects ${field} (${what}) with INVALID_ARGUMENT, naming the field and no secret`, async () => {
      const pending = signWith(change, target);
      assert.ok(pending instanceof Promise, "rejects rather than throws");
      const error = await pending.then(() => assert.fail("signed"), (e: unknown) => e);
      assert.ok(error instanceof TypeError);
      assert.equal((error as { code?: string }).code, "INVALID_ARGUMENT");
      assert.equal((error as { code?: string }).code, invalid("x").code);
      assert.equal(error.message, `Invalid ${field}`);
      assert.equal(error.cause, undefined);
      for (const text of [error.message, String(error.stack), JSON.stringify(error)]) {
        for (const sentinel of SENTINELS) assert.ok(!text.includes(sentinel), `${sentinel} in ${text}`);
      }
    });
  }

  it("rejects a number as the date even right after a Date of that time (the last x-amz-date is kept)", async () => {
    await signRequest(request, options);
    const date = options.date!.getTime() as unknown as Date;
    await assert.rejects(signRequest(request, { ...options, date }), {
      name: "TypeError",
      code: "INVALID_ARGUMENT",
      message: "Invalid date",
    });
  });

  it("rejects a missing request or options with INVALID_ARGUMENT, not a native TypeError", async () => {
    for (const [r, o] of [[undefined, options], [request, undefined]] as const) {
      await assert.rejects(signRequest(r as unknown as SignableRequest, o as unknown as SignOptions), {
        name: "TypeError",
        code: "INVALID_ARGUMENT",
      });
    }
  });
});

describe("signRequest: what it returns and signs", () => {
  it("returns the given headers plus authorization, x-amz-date and x-amz-security-token", async () => {
    const headers = await signRequest(request, options);
    assert.deepEqual([...headers.keys()], [
      "authorization",
      "content-type",
      "x-amz-date",
      "x-amz-security-token",
    ]);
    assert.equal(headers.get("x-amz-date"), "20240506T070809Z");
    assert.equal(headers.get("x-amz-security-token"), TOKEN);
    assert.match(
      headers.get("authorization")!,
      /^AWS4-HMAC-SHA256 Credential=AKIDSENTINEL\/20240506\/eu-west-1\/appsync\/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/,
    );
  });

  it("signs the region and service given, never ones guessed from the host", async () => {
    const headers = await signRequest(request, { ...options, region: "ap-south-2", service: "custom" });
    assert.match(headers.get("authorization")!, /\/ap-south-2\/custom\/aws4_request,/);
  });

  it("adds no x-amz-security-token without a session token, nor for an empty one", async () => {
    for (const sessionToken of [undefined, ""]) {
      const headers = await signRequest(request, {
        ...options,
        credentials: { ...options.credentials, sessionToken },
      });
      assert.equal(headers.get("x-amz-security-token"), null);
      assert.match(headers.get("authorization")!, /SignedHeaders=content-type;host;x-amz-date,/);
    }
  });

  it("sends unsignable headers unsigned, and replaces a given host with the URL's", async () => {
    const headers = await signRequest(
      {
        ...request,
        url: "https://api.example.com:8443/graphql",
        headers: { "User-Agent": "x", host: "evil.example" },
      },
      options,
    );
    assert.equal(headers.get("user-agent"), "x");
    assert.equal(headers.get("host"), null);
    const withPort = await signRequest({ ...request, url: "https://api.example.com:8443/graphql" }, options);
    const otherPort = await signRequest({ ...request, url: "https://api.example.com:8444/graphql" }, options);
    assert.match(headers.get("authorization")!, /SignedHeaders=host;x-amz-date;x-amz-security-token,/);
    assert.notEqual(withPort.get("authorization"), otherPort.get("authorization"));
  });

  it("signs the same for every form of HeadersInit and leaves the caller's Headers alone", async () => {
    const given = new Headers({ "Content-Type": "application/json; charset=UTF-8" });
    const forms: HeadersInit[] = [given, [["content-type", "application/json; charset=UTF-8"]], {
      "CONTENT-TYPE": "application/json; charset=UTF-8",
    }];
    const signed = await Promise.all(forms.map((headers) => signRequest({ ...request, headers }, options)));
    for (const headers of signed) assert.deepEqual([...headers], [...signed[0]!]);
    assert.deepEqual([...given], [["content-type", "application/json; charset=UTF-8"]]);
  });

  it("signs the body: another body, another signature; no body is the empty body", async () => {
    const a = await signRequest(request, options);
    const b = await signRequest({ ...request, body: request.body + " " }, options);
    assert.notEqual(a.get("authorization"), b.get("authorization"));
    const none = await signRequest({ method: "GET", url: request.url }, options);
    const empty = await signRequest({ method: "GET", url: request.url, body: "" }, options);
    assert.equal(none.get("authorization"), empty.get("authorization"));
  });

  it("signs the method as fetch sends it: standard methods uppercased, others as given", async () => {
    const as = async (method: string) =>
      (await signRequest({ ...request, method }, options)).get("authorization");
    for (const method of ["delete", "get", "head", "options", "post", "put"]) {
      assert.equal(await as(method), await as(method.toUpperCase()), method);
    }
    assert.equal(await as("Options"), await as("OPTIONS"));
    assert.notEqual(await as("patch"), await as("PATCH"));
    assert.equal(new Request(request.url, { method: "post" }).method, "POST");
    // The Fetch standard leaves "patch" as given; Bun uppercases it (a Bun deviation, noted in the README).
    if (!("Bun" in globalThis)) assert.equal(new Request(request.url, { method: "patch" }).method, "patch");
  });

  it("stamps each signature with its own date, even when signatures overlap or a date was rejected", async () => {
    const at = (date: unknown) => signRequest(request, { ...options, date: date as Date });
    const dates = ["2024-05-06T07:08:09.123Z", "2024-05-06T07:08:09.124Z", "2031-12-31T23:59:59.999Z"];
    const signed = await Promise.all([...dates, dates[0]].map((iso) => at(new Date(iso!))));
    assert.deepEqual(signed.map((headers) => headers.get("x-amz-date")), [
      "20240506T070809Z",
      "20240506T070809Z",
      "20311231T235959Z",
      "20240506T070809Z",
    ]);
    for (const [index, iso] of [...dates, dates[0]].entries()) {
      const alone = await at(new Date(iso!));
      assert.equal(signed[index]!.get("authorization"), alone.get("authorization"), iso);
    }
    // Something that looks like the next date but is no Date is rejected, and leaves nothing behind.
    const next = new Date("2030-01-02T03:04:05Z");
    await assert.rejects(at({ valueOf: () => +next }), { message: "Invalid date" });
    assert.equal((await at(next)).get("x-amz-date"), "20300102T030405Z");
  });

  it("uses the current time when no date is given", async () => {
    const before = Date.now();
    const headers = await signRequest(request, { ...options, date: undefined as unknown as Date });
    const stamp = headers.get("x-amz-date")!.replace(
      /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/,
      "$1-$2-$3T$4:$5:$6Z",
    );
    assert.ok(Math.abs(Date.parse(stamp) - before) < 5_000);
  });
});

describe("signing-key cache", () => {
  const noWebCrypto = globalThis.crypto?.subtle ? false : "no Web Crypto global here (Node 18)";
  it(`keeps at most ${SIGNING_KEY_CACHE_LIMIT} keys while credentials rotate`, async () => {
    const keys = new Map();
    const sign = createSigner(nodePrimitives, keys);
    for (let n = 0; n < 5 * SIGNING_KEY_CACHE_LIMIT; n++) {
      await sign(request, {
        ...options,
        credentials: { accessKeyId: KEY_ID, secretAccessKey: `${SECRET}-${n}` },
      });
      assert.ok(keys.size <= SIGNING_KEY_CACHE_LIMIT, `${keys.size} keys after ${n + 1} secrets`);
      assert.ok(keys.size >= 1);
    }
  });

  it(`the client's record signer keeps at most ${SIGNING_KEY_CACHE_LIMIT} keys too`, async () => {
    const keys = new Map();
    const sign = recordSigner(nodePrimitives.fastHmacKey, nodePrimitives.fastDigest, keys);
    for (let n = 0; n < 5 * SIGNING_KEY_CACHE_LIMIT; n++) {
      await sign(String(request.url), {}, request.body!, {
        ...options,
        credentials: { accessKeyId: KEY_ID, secretAccessKey: `${SECRET}-${n}` },
      });
      assert.ok(keys.size <= SIGNING_KEY_CACHE_LIMIT, `${keys.size} keys after ${n + 1} secrets`);
      assert.ok(keys.size >= 1);
    }
  });

  it("the record signer signs with one key pair while credentials change in place, on each crypto", async () => {
    // An SDK's credentials object is refreshed in place: a refresh that lands while a signature
    // waits on its hashes must not put the new key ID beside the old secret's signature.
    for (const primitives of [webOnly, nodePrimitives]) {
      if (primitives === webOnly && !globalThis.crypto?.subtle) continue;
      const make = () =>
        recordSigner(primitives.fastHmacKey as KeyMaker<unknown>, primitives.fastDigest as Digest<unknown>);
      const sign = make();
      const credentials = { accessKeyId: KEY_ID, secretAccessKey: SECRET };
      const pending = sign(String(request.url), {}, request.body!, { ...options, credentials });
      Object.assign(credentials, { accessKeyId: "AKIDREFRESHED", secretAccessKey: "refreshed" });
      const expected = await make()(
        String(request.url),
        {},
        request.body!,
        { ...options, credentials: { accessKeyId: KEY_ID, secretAccessKey: SECRET } },
      );
      assert.equal((await pending).authorization, expected.authorization);
    }
  });

  it("caches a key under the same name in signRequest's signer and the record signer", async () => {
    // Both signers name a key by the secret and the scope: a key either one derives, the other finds.
    const keys = new Map();
    const record = recordSigner(nodePrimitives.hmacKey, nodePrimitives.digest, keys);
    await createSigner(nodePrimitives, keys)(request, options);
    const [cached] = [...keys.values()];
    await record(String(request.url), {}, request.body!, options);
    assert.deepEqual([...keys.values()], [cached]);
    await record(String(request.url), {}, request.body!, { ...options, region: "us-east-1" });
    await createSigner(nodePrimitives, keys)(request, { ...options, region: "us-east-1" });
    assert.equal(keys.size, 2);
  });

  it("derives a key once per secret, day, region and service", async () => {
    const keys = new Map();
    const sign = createSigner(nodePrimitives, keys);
    const at = (iso: string, change: Partial<SignOptions> = {}) =>
      sign(request, { ...options, date: new Date(iso), ...change });
    await at("2024-05-06T00:00:00Z");
    await at("2024-05-06T23:59:59Z");
    assert.equal(keys.size, 1);
    await at("2024-05-07T00:00:00Z");
    await at("2024-05-07T00:00:00Z", { region: "us-east-1" });
    await at("2024-05-07T00:00:00Z", { service: "execute-api" });
    await at("2024-05-07T00:00:00Z", { credentials: { accessKeyId: "other", secretAccessKey: SECRET } });
    assert.equal(keys.size, 4, "the access key ID does not change the signing key");
  });

  it("never lends a key to another secret, day, region or service", { skip: noWebCrypto }, async () => {
    const shared = createSigner(webPrimitives);
    const variants: Partial<SignOptions>[] = [
      {},
      { credentials: { accessKeyId: KEY_ID, secretAccessKey: `${SECRET}2` } },
      { region: "us-east-1" },
      { service: "execute-api" },
      { date: new Date("2024-05-07T07:08:09Z") },
      { region: "eu-west-1a", service: "ppsync" }, // the same letters, split differently
      // The key is named by the secret and the scope together: a secret that ends as a scope begins.
      {
        credentials: {
          accessKeyId: KEY_ID,
          secretAccessKey: `${SECRET}/20240506/eu-west-1/appsync/aws4_request`,
        },
      },
      {
        credentials: { accessKeyId: KEY_ID, secretAccessKey: `${SECRET}2` },
        date: new Date("2024-05-06T00:00:00Z"),
      },
    ];
    for (const change of variants) {
      const fresh = await createSigner(webPrimitives)(request, { ...options, ...change });
      assert.deepEqual(
        [...await shared(request, { ...options, ...change })],
        [...fresh],
        JSON.stringify(change),
      );
    }
  });

  // On Web Crypto only: crypto.ts under Deno 2, Node and Bun (and crypto_node.ts) keep no CryptoKey.
  it("keeps the imported CryptoKey on Web Crypto: non-extractable, for signing only", async (t) => {
    const onWebCrypto = await webCryptoCopy() ??
      (globalThis.crypto?.subtle && webPrimitives.hmacKey("probe") instanceof Promise
        ? webPrimitives
        : undefined);
    if (!onWebCrypto) {
      return t.skip("crypto.ts runs on node:crypto here, and Deno is needed to load it on Web Crypto");
    }
    for (
      const [hmacKey, digest] of [[onWebCrypto.hmacKey, onWebCrypto.digest], [
        onWebCrypto.fastHmacKey,
        onWebCrypto.fastDigest,
      ]] as const
    ) {
      const keys = new Map<string, webPrimitives.MaybePromise<webPrimitives.HmacKey>>();
      const sign = signer(hmacKey, digest, keys);
      const first = await sign(request, options);
      const [cached] = [...keys.values()];
      const key = await cached!;
      assert.ok(key instanceof CryptoKey);
      assert.equal(key.extractable, false);
      assert.deepEqual(key.usages, ["sign"]);
      assert.deepEqual([...await sign(request, options)], [...first]);
      assert.equal(keys.size, 1);
      assert.equal([...keys.values()][0], cached);
    }
  });

  it("keeps secrets out of sight: a signed Headers holds no secret key", async () => {
    const headers = await signRequest(request, options);
    assert.ok(![...headers].some(([, value]) => value.includes(SECRET)));
  });
});

describe("crypto variants", () => {
  const inputs = ["", "a", "é😀\u0000", "x".repeat(1000), '{"query":"{ a }","variables":{"s":""}}'];
  // Keys of every length class: short, exactly one SHA-256 block (64 bytes), and longer (hashed first).
  const secrets = [
    "k",
    "clé 😀",
    new Uint8Array([0, 1, 255]),
    new Uint8Array(64).fill(7).buffer,
    "x".repeat(64),
    "y".repeat(65),
    "AWS4" + "é".repeat(40),
  ];
  const byteString = (value: unknown) =>
    value instanceof ArrayBuffer || value instanceof Uint8Array ? [...new Uint8Array(value)].join() : value;

  const noWebCrypto = globalThis.crypto?.subtle ? false : "no Web Crypto global here (Node 18)";

  it("crypto_web.ts names a missing Web Crypto (a browser page over plain http), and only then", () => {
    assert.equal(webOnly.signingProblem() === "", Boolean(globalThis.crypto?.subtle));
    const descriptor = Object.getOwnPropertyDescriptor(globalThis, "crypto");
    Object.defineProperty(globalThis, "crypto", { value: {}, configurable: true, writable: true });
    try {
      assert.equal(
        webOnly.signingProblem(),
        "cannot be signed: this runtime has no Web Crypto (crypto.subtle), which browsers give secure pages only " +
          "(https, localhost)",
      );
    } finally {
      if (descriptor) Object.defineProperty(globalThis, "crypto", descriptor);
      else delete (globalThis as { crypto?: unknown }).crypto;
    }
  });

  it("every pair of primitives computes what Web Crypto computes", { skip: noWebCrypto }, async () => {
    const reference = await webCryptoCopy() ??
      (webPrimitives.hmacKey("probe") instanceof Promise ? webPrimitives : undefined);
    const subtle = globalThis.crypto.subtle;
    const modules = [webPrimitives, nodePrimitives, webOnly, ...(reference ? [reference] : [])];
    for (const data of inputs) {
      const expectedHash = [
        ...new Uint8Array(await subtle.digest("SHA-256", new TextEncoder().encode(data))),
      ];
      for (const module of modules) {
        for (
          const [hmacKey, digest] of [[module.hmacKey, module.digest], [
            module.fastHmacKey,
            module.fastDigest,
          ]]
        ) {
          const hex = await (digest as Digest<unknown>)(0, data, 1);
          assert.equal(hex, expectedHash.map((byte) => byte.toString(16).padStart(2, "0")).join(""));
          assert.deepEqual([...new Uint8Array(await (digest as Digest<unknown>)(0, data))], expectedHash);
          for (const secret of secrets) {
            const raw = typeof secret == "string" ? new TextEncoder().encode(secret) : secret;
            const webKey = await subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, [
              "sign",
            ]);
            const expected = new Uint8Array(
              await subtle.sign("HMAC", webKey, new TextEncoder().encode(data)),
            );
            const key = await (hmacKey as KeyMaker<unknown>)(secret);
            const what = `${byteString(secret)} / ${data.slice(0, 20)}`;
            assert.deepEqual(
              [...new Uint8Array(await (digest as Digest<unknown>)(key, data))],
              [...expected],
              what,
            );
            assert.equal(
              await (digest as Digest<unknown>)(key, data, 1),
              [...expected].map((byte) => byte.toString(16).padStart(2, "0")).join(""),
              what,
            );
          }
        }
      }
    }
  });

  it("crypto_node.ts exports the same names as crypto.ts, so the npm build can swap the files", () => {
    assert.deepEqual(Object.keys(nodePrimitives).sort(), Object.keys(webPrimitives).sort());
    for (const name of Object.keys(webPrimitives) as (keyof typeof webPrimitives)[]) {
      assert.equal(nodePrimitives[name].length, webPrimitives[name].length, name);
    }
  });

  it("crypto_node.ts answers synchronously, so the signer's awaits cost next to nothing", () => {
    for (
      const [hmacKey, digest] of [[nodePrimitives.hmacKey, nodePrimitives.digest], [
        nodePrimitives.fastHmacKey,
        nodePrimitives.fastDigest,
      ]] as const
    ) {
      const key = hmacKey("k");
      assert.ok(!(key instanceof Promise));
      for (const value of [digest(key, "d"), digest(key, "d", 1), digest(0, "d", 1)]) {
        assert.ok(!(value instanceof Promise));
      }
    }
  });

  const getBuiltinModule = (globalThis as { process?: { getBuiltinModule?: unknown } }).process
    ?.getBuiltinModule;
  it("crypto.ts runs on node:crypto where process.getBuiltinModule hands it out, and answers synchronously", {
    skip: typeof getBuiltinModule == "function" ? false : "no process.getBuiltinModule here",
  }, () => {
    for (
      const [hmacKey, digest] of [[webPrimitives.hmacKey, webPrimitives.digest], [
        webPrimitives.fastHmacKey,
        webPrimitives.fastDigest,
      ]] as const
    ) {
      const key = hmacKey("k");
      assert.ok(!(key instanceof Promise));
      for (const value of [digest(key as never, "d"), digest(key as never, "d", 1), digest(0, "d", 1)]) {
        assert.ok(!(value instanceof Promise));
      }
    }
    assert.equal(webPrimitives.signingProblem(), "");
  });

  it("crypto.ts runs on Web Crypto without process.getBuiltinModule (pages, Deno 1)", async (t) => {
    const copy = await webCryptoCopy();
    if (!copy) return t.skip("a second copy of crypto.ts loads under Deno only");
    for (
      const [hmacKey, digest] of [[copy.hmacKey, copy.digest], [copy.fastHmacKey, copy.fastDigest]] as const
    ) {
      const key = hmacKey("k");
      assert.ok(key instanceof Promise);
      const cryptoKey = await key;
      assert.ok(cryptoKey instanceof CryptoKey);
      assert.equal(cryptoKey.extractable, false);
      assert.ok(digest(0, "d", 1) instanceof Promise);
    }
    assert.equal(copy.signingProblem(), "");
  });
});
