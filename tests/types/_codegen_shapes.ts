/**
 * The shapes `@graphql-codegen/client-preset` emits, written out so the type tests need no
 * generation step: its helper types, and the `TypedDocumentString` class of
 * `documentMode: "string"`. The interop tests (tests/interop/) use the real generated output.
 *
 * @module
 */

import type { DocumentTypeDecoration } from "@graphql-typed-document-node/core";

/** codegen's nullable input. */
export type InputMaybe<T> = T | null;

/** codegen's wrapper of every operation's variables type. */
export type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };

/** The variables type codegen emits for an operation without variables. */
export type NoVariables = Exact<{ [key: string]: never }>;

/** A query text carrying its result and variables types, as codegen's string mode emits it. */
export class TypedDocumentString<TResult, TVariables> extends String
  implements DocumentTypeDecoration<TResult, TVariables> {
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>["__apiType"]>;
  private value: string;
  public __meta__?: Record<string, unknown> | undefined;

  constructor(value: string, __meta__?: Record<string, unknown> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
