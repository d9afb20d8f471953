/**
 * The local endpoint's real-time protocol (see `_server.ts`, which serves it on the same port as its HTTP, at
 * `/graphql/realtime`): one socket's auth, `connection_init`, `start` and `stop`, and the `onPost`
 * events of its live subscriptions.
 *
 * @module
 */

import {
  type DocumentNode,
  execute,
  type ExecutionResult,
  getOperationAST,
  type GraphQLError,
  parse,
  validate,
} from "graphql";
import {
  type AnswerContext,
  authenticate,
  formatError,
  formatResult,
  type Post,
  type ReceivedRequest,
  type Refusal,
  schema,
  unauthorized,
} from "./_server.ts";
import { type Peer, refuseWithoutGraphqlWs } from "./_websocket.ts";

/** A live subscription: runs its document for a post (`null` for the check of its start). */
type Run = (post: Post | null) => Promise<ExecutionResult>;

/** The real-time protocol on one socket. */
export interface RealtimeSocket {
  /** The live subscriptions, by id. */
  readonly live: Map<string, Run>;
  /** Sends each live subscription its `onPost` event of `post`. */
  publish(post: Post): void;
  /** Receives a text frame. */
  text(text: string): void;
}

/** A message of the real-time protocol, as received: anything, read with `?.` only. */
// deno-lint-ignore no-explicit-any
type Message = Record<string, any> | null;

/**
 * The real-time protocol on one socket: its auth header object checked as `POST /graphql/connect`
 * with body `{}`, and refused at its first message; then `connection_init`, `start` and `stop`
 * answered in the order they came (each waits for the one before: a `start`'s auth takes a while).
 */
export function realtime(
  peer: Peer,
  context: AnswerContext,
  keepAliveMs: number,
  changed: () => void,
): RealtimeSocket {
  const live = new Map<string, Run>();
  const send = (message: Message) => peer.sendText(JSON.stringify(message));
  if (refuseWithoutGraphqlWs(peer)) return { live, publish: () => {}, text: () => {} };
  const connected = authenticateHeader(socketRequest(peer, "/connect", peer.header, "{}"), context);
  let state: "new" | "acked" | "refused" = "new";
  let queue = Promise.resolve();
  const receive = async (message: Message) => {
    const mode = await connected;
    if (state === "refused") return;
    if (typeof mode !== "string") {
      state = "refused";
      send({ type: "connection_error", payload: unauthorizedPayload(mode) });
      return peer.close(1000);
    }
    const id = message?.id;
    if (message?.type === "connection_init" && state === "new") {
      state = "acked";
      send({ type: "connection_ack", payload: { connectionTimeoutMs: 300_000 } });
      peer.every(keepAliveMs, () => send({ type: "ka" }));
    } else if (message?.type === "start") {
      const started = await start(peer, message.payload, context);
      if (typeof started === "function") {
        live.set(id, started);
        send({ type: "start_ack", id });
      } else send({ type: "error", id, payload: started });
    } else if (message?.type === "stop") {
      live.delete(id);
      send({ type: "complete", id });
    }
  };
  return {
    live,
    publish(post) {
      for (const [id, run] of live) {
        void run(post).then((result) =>
          live.get(id) === run && send({ type: "data", id, payload: formatResult(result) })
        );
      }
    },
    text(text) {
      let message: Message;
      try {
        message = JSON.parse(text);
      } catch {
        return; // not JSON: ignored
      }
      // A failure of the endpoint's own closes the socket (1011), and leaves the process running.
      queue = queue.then(() => receive(message)).catch(() => peer.close(1011)).then(changed);
    },
  };
}

/**
 * What `/graphql` would receive for an auth header object: a POST of `body` to the socket's path with
 * `/realtime` replaced by `suffix`, with the socket's query less its `header` and `payload`.
 */
function socketRequest(peer: Peer, suffix: string, header: unknown, body: string): ReceivedRequest {
  const [path, query = ""] = peer.path.split(/\?(.*)/s) as [string, string?];
  const headers: Record<string, string> = {};
  if (header !== null && typeof header === "object") {
    for (const [name, value] of Object.entries(header)) headers[name.toLowerCase()] = String(value);
  }
  return {
    method: "POST",
    path: path.replace(/\/realtime$/, suffix),
    query: query.split("&").filter((pair) => pair && !/^(header|payload)=/.test(pair)).join("&"),
    headers,
    body,
  };
}

/**
 * {@link authenticate} for an auth header object, which must name the GraphQL host (a request always
 * has one); a failure to check it is a refusal.
 */
async function authenticateHeader(
  request: ReceivedRequest,
  context: AnswerContext,
): Promise<string | Refusal> {
  if (!request.headers["host"]) return unauthorized("The authorization has no host");
  try {
    return await authenticate(request, context);
  } catch (error) {
    return unauthorized(`The authorization could not be checked: ${(error as Error).message}`);
  }
}

/** An auth refusal as the real-time protocol words it: an `UnauthorizedException`, with the status. */
function unauthorizedPayload(refusal: Refusal) {
  const { errors: [error] } = refusal.body as { errors: { message: string }[] };
  return {
    errors: [{ errorType: "UnauthorizedException", errorCode: refusal.status, message: error!.message }],
  };
}

/**
 * A `start`'s subscription, once its auth holds (iam: `POST /graphql` with its `data` as the body)
 * and its `data` is a valid subscription of the schema with variables that fit; otherwise the
 * `error` payload to send.
 */
async function start(
  peer: Peer,
  payload: Message,
  context: AnswerContext,
): Promise<Run | { errors: unknown[] }> {
  const data = payload?.data;
  const badRequest = (message: string) => ({ errors: [{ errorType: "BadRequestException", message }] });
  if (typeof data !== "string") return badRequest("A start's data must be a JSON string");
  const mode = await authenticateHeader(
    socketRequest(peer, "", payload?.extensions?.authorization, data),
    context,
  );
  if (typeof mode !== "string") return unauthorizedPayload(mode);
  let request: Message;
  try {
    request = JSON.parse(data);
  } catch {
    return badRequest("A start's data must be JSON");
  }
  const { query, variables, operationName } = request ?? {};
  if (typeof query !== "string") return badRequest("A start's data must have a query");
  if (variables != null && (typeof variables !== "object" || Array.isArray(variables))) {
    return badRequest("A start's variables must be an object");
  }
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch (error) {
    return { errors: [formatError(error as GraphQLError)] };
  }
  let errors: readonly GraphQLError[];
  try {
    errors = validate(schema, document);
  } catch (error) {
    // graphql-js's SingleFieldSubscriptionsRule throws for a directive's variable on the root field.
    errors = [error as GraphQLError];
  }
  if (errors.length) return { errors: errors.map(formatError) };
  if (getOperationAST(document, operationName)?.operation !== "subscription") {
    return { errors: [{ errorType: "ValidationError", message: "Only a subscription can be started" }] };
  }
  const run: Run = async (post) =>
    await execute({
      schema,
      document,
      rootValue: { onPost: post },
      variableValues: variables,
      operationName,
    });
  // Variables that do not fit the operation are refused now, not at each event.
  const check = await run(null);
  return check.data === undefined ? { errors: check.errors!.map(formatError) } : run;
}
