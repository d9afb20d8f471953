/**
 * The module worker of the workerd run (miniflare): the shared checks of `worker_entry.ts`, and the
 * real-time checks of `realtime_checks.ts` through workerd's global `WebSocket`.
 *
 * - `GET /?endpoint=…` runs the shared checks, as `worker_entry.ts` does;
 * - `GET /?realtime=<GraphQL URL>` runs the real-time checks in this request;
 * - `GET /?realtime=<GraphQL URL>&durable=open`, then `&durable=reuse`: the Durable Object
 *   {@link RealtimeHolder} subscribes in the first request, and subscribes again over the same
 *   socket in the second. Workerd lets a request use no socket another request opened; a Durable
 *   Object's requests share its I/O.
 *
 * Each answers its checks' results as JSON.
 *
 * @module
 */

import * as lib from "@seed/service-client";
import * as realtime from "@seed/service-client/realtime";
import checks from "./worker_entry.ts";
import { type Held, openHeld, reuseHeld, runRealtimeChecks } from "./realtime_checks.ts";

/** The Durable Object namespace binding of the worker (miniflare's `durableObjects`). */
interface Env {
  readonly REALTIME: {
    idFromName(name: string): unknown;
    get(id: unknown): { fetch(url: string): Promise<Response> };
  };
}

/** A Durable Object that keeps one `RealtimeClient`, and a live subscription, between requests. */
export class RealtimeHolder {
  #held: Held | undefined;

  /** Answers `durable=open` and `durable=reuse` (see the module's documentation). */
  async fetch(request: Request): Promise<Response> {
    const params = new URL(request.url).searchParams;
    if (params.get("durable") === "open") {
      const [result, held] = await openHeld({ lib, realtime, url: params.get("realtime") ?? "" });
      this.#held = held;
      return Response.json([result]);
    }
    const held = this.#held;
    this.#held = undefined;
    return Response.json([await reuseHeld(held)]);
  }
}

/** The worker: the shared checks, or the real-time checks, by the request's parameters. */
export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const params = new URL(request.url).searchParams;
    const url = params.get("realtime");
    if (url === null) return checks.fetch(request);
    if (params.has("durable")) {
      return env.REALTIME.get(env.REALTIME.idFromName("realtime")).fetch(request.url);
    }
    return Response.json(await runRealtimeChecks({ lib, realtime, url }));
  },
};
