/**
 * `@seed/service-client` for these tests: the library's source. deno.json maps the name here rather
 * than to ../../mod.ts itself, which Deno would take for a link to the root package, and lock the
 * root's own npm imports in this folder's lock (which then went stale whenever they changed).
 *
 * @module
 */

export * from "../../mod.ts";
