// A consumer of the npm package with neither optional peer installed (no `graphql`, no
// `@graphql-typed-document-node/core`): a Node project (`types: ["node"]`, `lib: es2022`, and with
// the DOM's too in one mode), compiled with skipLibCheck off: see ../run.ts. String documents,
// every auth mode, errors and the signer must type-check without either peer; `introspect()` then
// resolves `{ __schema: unknown }`, never `any`. undici (a dev dependency) stands for the fetch a Node
// project passes as the `fetch` option.
// Each @ts-expect-error proves the types arrived: were they `any`, the directive would be unused.
import { type AuthOptions, isServiceError, ServiceClient, ServiceHttpError } from "@seed/service-client";
import { type SignableRequest, signRequest } from "@seed/service-client/sigv4";
import { Agent, fetch as undiciFetch } from "undici";

export async function main(): Promise<void> {
  const auth: AuthOptions = { type: "lambda", authorizationToken: () => "token" };
  const client = new ServiceClient({ url: "https://x.test/graphql", auth, headers: { "x-app": "demo" } });
  const data: { hello: string } = await client.request<{ hello: string }>("{ hello }", undefined, {
    signal: new AbortController().signal,
  });
  const schema = await client.introspect();
  // @ts-expect-error without graphql the schema is unknown: were it `any`, this would compile
  void schema.__schema.queryType;
  const request: SignableRequest = { method: "POST", url: "https://x.test/graphql", headers: [["a", "b"]] };
  const signed: Headers = await signRequest(request, {
    region: "us-east-1",
    service: "appsync",
    credentials: { accessKeyId: "A", secretAccessKey: "S" },
  });
  console.log(data.hello, schema, signed.get("authorization"));
  try {
    await client.query("{ hello }");
  } catch (err) {
    if (err instanceof ServiceHttpError) console.log(err.status.toFixed(0));
    else if (isServiceError(err)) console.log(err.code);
  }

  // undici's fetch, as it is and with a dispatcher: the usual reason to pass `fetch` on Node.
  const dispatcher = new Agent();
  new ServiceClient({ url: "https://x.test/graphql", auth, fetch: undiciFetch });
  new ServiceClient({
    url: "https://x.test/graphql",
    auth,
    fetch: (input, init) => undiciFetch(input, { ...init, dispatcher }),
  });
  // The global fetch wrapped, as for tracing: its init is handed on as it is.
  new ServiceClient({ url: "https://x.test/graphql", auth, fetch: (input, init) => fetch(input, init) });

  // @ts-expect-error a field of another auth mode
  new ServiceClient({ url: "https://x.test/graphql", auth: { type: "iam", region: "r", jwtToken: "t" } });
  // @ts-expect-error headers are a Headers, a record or pairs
  await signRequest({ method: "GET", url: "https://x.test", headers: 42 }, {
    region: "r",
    service: "s",
    credentials: { accessKeyId: "A", secretAccessKey: "S" },
  });
}
