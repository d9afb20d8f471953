/**
 * The local endpoint for the interop tests, and what they read off it: the body of the last
 * request it received.
 *
 * @module
 */

import { after, before } from "node:test";
import assert from "node:assert/strict";
import { ServiceClient } from "@seed/service-client";
import { type Endpoint, startEndpoint } from "../_server.ts";
import { API_KEY } from "../_fixtures.ts";

/** What the client sent: the JSON body of a request. */
export interface SentBody {
  readonly query: string;
  readonly variables?: Record<string, unknown>;
  readonly operationName?: string;
}

/**
 * Starts the local endpoint before the file's tests and closes it after them.
 *
 * @returns Accessors for the endpoint, a client of it, and the last body it received.
 */
export function useEndpoint(): {
  endpoint: () => Endpoint;
  client: () => ServiceClient;
  lastBody: () => SentBody;
} {
  let endpoint: Endpoint | undefined;
  let client: ServiceClient | undefined;
  before(async () => {
    endpoint = await startEndpoint();
    client = new ServiceClient({ url: endpoint.url, auth: { type: "apiKey", apiKey: API_KEY } });
  });
  after(() => endpoint?.close());
  return {
    endpoint: () => endpoint!,
    client: () => client!,
    lastBody: () => {
      const request = endpoint!.requests.at(-1);
      assert.ok(request, "the endpoint received a request");
      return JSON.parse(request.body) as SentBody;
    },
  };
}
