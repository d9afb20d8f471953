/**
 * The request the SigV4 benchmarks sign, on every runtime and in the browser page alike: an AppSync
 * POST with a realistic body (non-ASCII included) and temporary credentials.
 *
 * @module
 */

import { AwsV4Signer } from "aws4fetch";

export const url = "https://abcdefghijklmnopqrstuvwxyz.appsync-api.eu-west-1.amazonaws.com/graphql";
export const body = JSON.stringify({
  query: "query GetPost($id: ID!, $first: Int, $after: String) " +
    "{ getPost(id: $id) { id title author { id name } comments(first: $first, after: $after) { id content } } }",
  variables: {
    id: "6d9e0c4e-6b8d-4f43-9d6a-1f0b6b2c7a11",
    locale: "fr-FR",
    first: 20,
    note: "café ☕",
  },
  operationName: "GetPost",
});
export const headers = { "content-type": "application/json; charset=UTF-8" };
export const credentials = {
  accessKeyId: "ASIAEXAMPLEEXAMPLE12",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
  sessionToken: "IQoJb3JpZ2luX2VjEXAMPLE".repeat(12),
};
export const region = "eu-west-1";

/** Signs the request with aws4fetch, the peer, at `date` (or now), with the key cache given. */
export function aws4fetchSign(date: Date | undefined, cache: Map<string, ArrayBuffer>): Promise<unknown> {
  return new AwsV4Signer({
    url,
    method: "POST",
    headers,
    body,
    ...credentials,
    service: "appsync",
    region,
    allHeaders: true,
    ...(date ? { datetime: date.toISOString().replace(/[:-]|\.\d{3}/g, "") } : {}),
    cache,
  }).sign();
}
