/**
 * `@seed/service-client/realtime` for the scripts that run with the dev tools' configuration: the
 * source, as the root deno.json resolves the package's own name. (An import map entry that pointed
 * at the file itself would make Deno lock the root package's dependencies in the tools' lock.)
 *
 * @module
 */

export * from "../../../src/realtime.ts";
