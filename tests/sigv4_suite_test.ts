/**
 * AWS's Signature Version 4 test suite (`tests/fixtures/sigv4-suite/`, 31 cases, provenance in its SOURCE.md): for each case, the
 * canonical request, the string to sign and the Authorization value must equal the suite's
 * `.creq`, `.sts` and `.authz` files.
 *
 * Each case is signed as fetch would send it (its URL, headers and body), by `signRequest` and by
 * signers on every crypto variant, whose `digest` is watched: the canonical request is the last text
 * hashed with SHA-256 to hex, the string to sign the text signed with HMAC to hex. The variants:
 * `crypto.ts` as this runtime loads it (on `node:crypto` through `process.getBuiltinModule` where
 * there is one), `crypto.ts` on Web Crypto (as pages and Deno 1 run it: under Deno, a second copy
 * loaded with `process.getBuiltinModule` out of sight), and `crypto_node.ts`; each with both of its
 * pairs of primitives (`hmacKey`/`digest` for `signRequest`, `fastHmacKey`/`fastDigest` for the client).
 *
 * Three cases cannot be sent through fetch (repeated or multi-line headers); they are listed, with
 * the reason, and the reason itself is checked. Two more have a raw space or UTF-8 in the request
 * line: a URL percent-encodes them, so fetch sends another request line, which AWS (and smithy)
 * sign with the path encoded twice; those are checked for exactly that.
 *
 * Set SIGV4_SUITE to a folder to read the suite from elsewhere.
 *
 * @module
 */

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import * as webPrimitives from "../src/crypto.ts";
import { webCryptoCopy } from "./_crypto_variants.ts";
import * as nodePrimitives from "../src/crypto_node.ts";
import * as webOnly from "../src/crypto_web.ts";
import { type SignableRequest, type SignOptions, signRequest } from "../src/sigv4.ts";
import type { Digest } from "../src/crypto.ts";
import { createSigner, type SigningPrimitives } from "../src/sigv4_signer.ts";

const SUITE_DIR = process.env.SIGV4_SUITE ??
  fileURLToPath(new URL("./fixtures/sigv4-suite/", import.meta.url));
const REGION = "us-east-1";
const SERVICE = "service";
const DATE = new Date("2015-08-30T12:36:00Z");
const CREDENTIALS = {
  accessKeyId: "AKIDEXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
};

/** The cases fetch cannot send, and why. */
const NOT_SENDABLE_BY_FETCH: Record<string, string> = {
  "get-header-key-duplicate":
    'a header line is repeated: fetch joins repeated values with ", " into one line, so another value is signed',
  "get-header-value-order":
    'a header line is repeated: fetch joins repeated values with ", " into one line, so another value is signed',
  "get-header-value-multiline":
    "a header value spans several lines: fetch rejects line breaks in header values",
};

/** The cases whose raw request line a URL must percent-encode. */
const PERCENT_ENCODED_BY_URL = ["get-space", "get-utf8"];

interface SuiteCase {
  name: string;
  method: string;
  target: string;
  headerLines: [string, string][];
  body: string;
  /** Why fetch cannot send this request, if it cannot. */
  notSendable?: string;
  creq: string;
  sts: string;
  authz: string;
}

function findCases(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (!statSync(path).isDirectory()) continue;
    try {
      statSync(join(path, `${entry}.req`));
      found.push(path);
    } catch {
      found.push(...findCases(path));
    }
  }
  return found;
}

function readCase(dir: string): SuiteCase {
  const name = dir.split(/[\\/]/).pop()!;
  const read = (ext: string) => readFileSync(join(dir, `${name}.${ext}`), "utf8");
  const lines = read("req").split("\n");
  const requestLine = lines[0]!;
  const method = requestLine.slice(0, requestLine.indexOf(" "));
  const target = requestLine.slice(method.length + 1, requestLine.lastIndexOf(" HTTP/"));
  const headerLines: [string, string][] = [];
  let notSendable: string | undefined;
  let index = 1;
  for (; index < lines.length && lines[index] !== ""; index++) {
    const line = lines[index]!;
    if (/^[ \t]/.test(line)) {
      notSendable = NOT_SENDABLE_BY_FETCH["get-header-value-multiline"];
      headerLines[headerLines.length - 1]![1] += "\n" + line;
      continue;
    }
    const colon = line.indexOf(":");
    const header: [string, string] = [line.slice(0, colon), line.slice(colon + 1)];
    if (headerLines.some(([seen]) => seen.toLowerCase() === header[0].toLowerCase())) {
      notSendable = NOT_SENDABLE_BY_FETCH["get-header-key-duplicate"];
    }
    headerLines.push(header);
  }
  const body = lines.slice(index + 1).join("\n");
  const parsed: SuiteCase = {
    name,
    method,
    target,
    headerLines,
    body,
    creq: read("creq"),
    sts: read("sts"),
    authz: read("authz"),
  };
  if (notSendable) parsed.notSendable = notSendable;
  return parsed;
}

const cases = findCases(SUITE_DIR).map(readCase);
const sendable = cases.filter((c) => !c.notSendable);

function header(suiteCase: SuiteCase, name: string): string | undefined {
  return suiteCase.headerLines.find(([n]) => n.toLowerCase() === name)?.[1].trim();
}

/** The case as fetch would send it: the URL, and the headers but `Host` (fetch sets it from the URL). */
function asFetchRequest(suiteCase: SuiteCase): { url: URL; headers: Headers; sessionToken?: string } {
  const url = new URL(`https://${header(suiteCase, "host")}${suiteCase.target}`);
  const headers = new Headers(suiteCase.headerLines);
  headers.delete("host");
  headers.delete("x-amz-date"); // the signer sets it
  const sessionToken = headers.get("x-amz-security-token") ?? undefined;
  headers.delete("x-amz-security-token"); // the signer sets it from the credentials
  return sessionToken ? { url, headers, sessionToken } : { url, headers };
}

/** Signs on `primitives` and returns what the signer hashed last (the canonical request) and signed. */
async function stages(
  primitives: SigningPrimitives<unknown>,
  request: SignableRequest,
  options: SignOptions,
): Promise<{ creq: string; sts: string; authz: string }> {
  const hashed: string[] = [], signed: string[] = [];
  const watched = ((key: unknown, data: string, hex?: 1) => {
    if (hex) (key ? signed : hashed).push(data);
    return (primitives.digest as (key: unknown, data: string, hex?: 1) => unknown)(key, data, hex);
  }) as Digest<unknown>;
  const headers = await createSigner({ hmacKey: primitives.hmacKey, digest: watched })(request, options);
  assert.equal(signed.length, 1);
  return { creq: hashed.at(-1)!, sts: signed[0]!, authz: headers.get("authorization")! };
}

/** Node 18 has no global `crypto`: there the npm build signs with crypto_node.ts only. */
const noWebCrypto = globalThis.crypto?.subtle ? false : "no Web Crypto global here (Node 18)";
/** What `crypto.ts` runs on here: `node:crypto` answers synchronously (Node 18 has neither). */
const loaded =
  globalThis.crypto?.subtle || typeof (globalThis as { process?: { getBuiltinModule?: unknown } }).process
        ?.getBuiltinModule == "function"
    ? webPrimitives.hmacKey("probe") instanceof Promise ? "Web Crypto" : "node:crypto"
    : "Web Crypto";
const webCopy = await webCryptoCopy();

/** Each crypto variant with each of its pairs of primitives; `skip` says why a variant cannot run here. */
const variants: [label: string, primitives: SigningPrimitives<unknown>, skip: string | false][] = [];
for (
  const [label, module, skip] of [
    [`crypto.ts (${loaded}, as loaded here)`, webPrimitives, loaded == "Web Crypto" && noWebCrypto],
    [
      "crypto.ts on Web Crypto (a second copy)",
      webCopy,
      !webCopy && "a second copy of crypto.ts loads under Deno only",
    ],
    ["crypto_node.ts (node:crypto)", nodePrimitives, false],
    ["crypto_web.ts (Web Crypto, the npm package's web build)", webOnly, noWebCrypto],
  ] as const
) {
  const pair = (hmacKey?: unknown, digest?: unknown) => ({ hmacKey, digest }) as SigningPrimitives<unknown>;
  variants.push(
    [`${label}, hmacKey/digest`, pair(module?.hmacKey, module?.digest), skip],
    [`${label}, fastHmacKey/fastDigest`, pair(module?.fastHmacKey, module?.fastDigest), skip],
  );
}

describe("AWS SigV4 test suite", () => {
  it("has its 31 cases, 28 of which fetch can send", () => {
    assert.equal(cases.length, 31);
    assert.equal(sendable.length, 28);
  });

  it("lists exactly the cases fetch cannot send, for the reason given", () => {
    const found = Object.fromEntries(cases.filter((c) => c.notSendable).map((c) => [c.name, c.notSendable]));
    assert.deepEqual(found, NOT_SENDABLE_BY_FETCH);
    // The reasons hold: fetch joins a repeated header with ", " (the suite wants ","), and it
    // rejects a value that spans lines.
    const repeated = cases.find((c) => c.name === "get-header-key-duplicate")!;
    const joined = new Headers(repeated.headerLines).get("my-header1");
    assert.equal(joined, "value2, value2, value1");
    assert.ok(!repeated.creq.includes(`my-header1:${joined}`));
    const multiline = cases.find((c) => c.name === "get-header-value-multiline")!;
    assert.throws(() => new Headers(multiline.headerLines), TypeError);
  });

  for (const suiteCase of cases.filter((c) => c.notSendable)) {
    it.skip(`${suiteCase.name}: not sendable through fetch: ${suiteCase.notSendable}`, () => {});
  }

  it("lists exactly the cases whose request line a URL percent-encodes", () => {
    const encoded = sendable.filter((c) => {
      const { url } = asFetchRequest(c);
      return url.pathname + url.search !== c.target && /%/.test(url.pathname) && !/%/.test(c.target);
    });
    assert.deepEqual(encoded.map((c) => c.name).sort(), PERCENT_ENCODED_BY_URL);
  });

  for (const suiteCase of sendable) {
    describe(suiteCase.name, () => {
      const { url, headers, sessionToken } = asFetchRequest(suiteCase);
      const credentials = sessionToken ? { ...CREDENTIALS, sessionToken } : CREDENTIALS;
      const request = { method: suiteCase.method, url, headers, body: suiteCase.body };
      const options = { region: REGION, service: SERVICE, credentials, date: DATE };

      if (!PERCENT_ENCODED_BY_URL.includes(suiteCase.name)) {
        for (const [label, primitives, skip] of variants) {
          it(
            `the canonical request, string to sign and Authorization are the suite's, on ${label}`,
            { skip },
            async () => {
              const got = await stages(primitives, request, options);
              assert.equal(got.creq, suiteCase.creq);
              assert.equal(got.sts, suiteCase.sts);
              assert.equal(got.authz, suiteCase.authz);
            },
          );
        }

        it("signRequest gives the suite's Authorization, x-amz-date and token", async () => {
          const signed = await signRequest(request, options);
          assert.equal(signed.get("authorization"), suiteCase.authz);
          assert.equal(signed.get("x-amz-date"), header(suiteCase, "x-amz-date"));
          assert.equal(signed.get("x-amz-security-token"), sessionToken ?? null);
        });
      } else {
        for (const [label, primitives, skip] of variants) {
          it(`signs the percent-encoded path fetch sends, encoded once more (as smithy), on ${label}`, {
            skip,
          }, async () => {
            const got = await stages(primitives, request, options);
            const lines = got.creq.split("\n");
            const twice =
              { "get-space": "/example%2520space/", "get-utf8": "/%25E1%2588%25B4" }[suiteCase.name];
            assert.equal(lines[1], twice);
            // Everything else is the suite's.
            lines[1] = suiteCase.creq.split("\n")[1]!;
            assert.equal(lines.join("\n"), suiteCase.creq);
            assert.notEqual(got.authz, suiteCase.authz);
            assert.equal((await signRequest(request, options)).get("authorization"), got.authz);
          });
        }
      }

      for (const [label, primitives, skip] of variants) {
        // Not the pair signRequest itself signs with here: that would compare a signature with itself.
        if (primitives.hmacKey === webPrimitives.hmacKey && primitives.digest === webPrimitives.digest) {
          continue;
        }
        it(`signs exactly as signRequest does, on ${label}`, { skip }, async () => {
          const signed = await createSigner(primitives)(request, options);
          assert.deepEqual([...signed], [...await signRequest(request, options)]);
        });
      }
    });
  }

  describe("post-sts-token", () => {
    const before = cases.find((c) => c.name === "post-sts-header-before")!;
    const after = cases.find((c) => c.name === "post-sts-header-after")!;
    const token = header(before, "x-amz-security-token")!;
    const request = { method: "POST", url: "https://example.amazonaws.com/" };
    const options = { region: REGION, service: SERVICE, date: DATE };

    it("a session token is sent and signed (post-sts-header-before), as smithy does", async () => {
      const signed = await signRequest(request, {
        ...options,
        credentials: { ...CREDENTIALS, sessionToken: token },
      });
      assert.equal(signed.get("x-amz-security-token"), token);
      assert.equal(signed.get("authorization"), before.authz);
      assert.notEqual(signed.get("authorization"), after.authz);
    });

    it("without a session token, nothing is added (post-sts-header-after, before the token is appended)", async () => {
      const signed = await signRequest(request, {
        ...options,
        credentials: { ...CREDENTIALS, sessionToken: undefined },
      });
      assert.equal(signed.get("x-amz-security-token"), null);
      assert.equal(signed.get("authorization"), after.authz);
    });
  });
});
