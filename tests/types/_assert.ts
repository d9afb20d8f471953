/**
 * Type assertions of our own, for the type tests in this folder.
 *
 * `IsExact<A, B>` is `true` only when A and B are the same type: neither wider nor narrower, and
 * `any` equals nothing but `any` (the comparison goes through generic functions, which TypeScript
 * only relates when the two types are identical). `assertType<IsExact<A, B>>()` compiles only when
 * they are.
 *
 * @module
 */

/** `true` when `A` and `B` are identical types, `false` otherwise. */
export type IsExact<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true
  : false;

/** `true` when `T` is `any`. */
export type IsAny<T> = 0 extends 1 & T ? true : false;

/**
 * Compiles only when `T` is `true`; does nothing at run time.
 *
 * @example
 * ```ts ignore
 * assertType<IsExact<typeof data, { hello: string }>>();
 * ```
 */
export function assertType<T extends true>(..._proof: T extends true ? [] : [never]): void {
  // A type-level assertion: nothing to do at run time.
}
