/**
 * The module worker of the workerd run (miniflare). Each request runs the checks named by its `only`
 * parameters against the endpoint named by `endpoint`, and answers their results as JSON.
 *
 * @module
 */

import * as lib from "@seed/service-client";
import * as sigv4 from "@seed/service-client/sigv4";
import { runChecks } from "./checks.ts";

/** The worker: `GET /?endpoint=http://127.0.0.1:PORT&only=apiKey&only=iam`. */
export default {
  async fetch(request: Request): Promise<Response> {
    const params = new URL(request.url).searchParams;
    const only = params.getAll("only");
    const results = await runChecks({
      lib,
      sigv4,
      base: params.get("endpoint") ?? "",
      ...(only.length ? { only } : {}),
    });
    return Response.json(results);
  },
};
