/**
 * The control-plane store: versioned items addressed by (pk, sk), changed only by single-item
 * conditional writes. DynamoDB in the cloud and locally (dynalite, LocalStack, moto); an in-memory
 * twin for unit tests. Key shapes live in `keys.ts`; nothing else builds pk/sk strings.
 *
 * Every item carries a `version`: a new item gets version 1 and every put bumps it by one. A write
 * names the version it expects (or `'absent'`), optionally plus conditions on top-level fields of
 * the stored value (epochs), and throws `FlussError('METASTORE_CONFLICT')` when they do not hold.
 */

/** A JSON value. Integers must be safe integers; exact 64-bit numbers are stored as strings. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | readonly JsonValue[]
  | { readonly [k: string]: JsonValue }

/** The stored value: a JSON object whose top-level fields are separate attributes. */
export type ItemValue = { readonly [field: string]: JsonValue }

export interface VersionedItem<T extends ItemValue = ItemValue> {
  readonly pk: string
  readonly sk: string
  readonly version: number
  readonly value: T
}

/** Comparison ops on a top-level field; `'absent'` holds when the field is not stored. */
export type AttributeOp = '<' | '<=' | '=' | '>=' | '>' | 'absent'

/**
 * A condition on one top-level field of the stored value. Numbers compare numerically, strings by
 * their UTF-8 bytes; a missing field or a value of another type makes a comparison false (as in
 * DynamoDB). Booleans support only `'='`. There is no null comparison (emulators disagree on
 * how a missing field compares with NULL); use `'absent'`.
 */
export interface AttributeCondition {
  readonly field: string
  readonly op: AttributeOp
  readonly value?: number | string | boolean
}

export interface WriteCondition {
  /** The version the item must have now, or `'absent'` when it must not exist. */
  readonly version: 'absent' | number
  /** Further conditions that must all hold as well (all false when the item is absent, except `'absent'`). */
  readonly attributes?: readonly AttributeCondition[]
}

export interface GetOptions {
  /** Strongly consistent read; default true (the control plane reads before it writes). */
  readonly consistent?: boolean
}

export interface QueryOptions {
  /** Only items whose sort key starts with this. */
  readonly skPrefix?: string
  /** Page size, 1..QUERY_LIMIT_MAX; default QUERY_LIMIT_DEFAULT. */
  readonly limit?: number
  /** The `cursor` of the previous page of the same query. */
  readonly cursor?: string
  /** Descending sort-key order (e.g. the newest snapshot first). */
  readonly reverse?: boolean
  readonly consistent?: boolean
}

export interface QueryPage {
  /** Items in sort-key order (UTF-8 byte order); a page may hold fewer than `limit` items. */
  readonly items: readonly VersionedItem[]
  /** Present when more items may follow; pass it back as `cursor`. */
  readonly cursor?: string
}

export const QUERY_LIMIT_DEFAULT = 100
export const QUERY_LIMIT_MAX = 1000

export interface MetaStore {
  get(pk: string, sk: string, options?: GetOptions): Promise<VersionedItem | undefined>
  query(pk: string, options?: QueryOptions): Promise<QueryPage>
  /** Writes the whole value when the condition holds; returns the new version. */
  put(pk: string, sk: string, value: ItemValue, condition: WriteCondition): Promise<number>
  /** Deletes when the condition holds (`version: 'absent'` succeeds, as a no-op, only if absent). */
  delete(pk: string, sk: string, condition: WriteCondition): Promise<void>
  /** Releases clients and sockets; the store is unusable afterwards. */
  close(): Promise<void>
}
