import { assert } from '../errors/index.js'
import { compareKeys, conditionHolds } from './conditions.js'
import { metaStoreConflict } from './conflict.js'
import {
  copyValue,
  nextVersion,
  validateCondition,
  validateKey,
  validateQuery,
  validateValue,
} from './item-validation.js'
import type {
  GetOptions,
  ItemValue,
  MetaStore,
  QueryOptions,
  QueryPage,
  VersionedItem,
  WriteCondition,
} from './metastore.js'
import { decodeCursor, encodeCursor } from './query-cursor.js'

interface Stored {
  readonly version: number
  readonly value: ItemValue
}

/**
 * In-memory MetaStore with DynamoDB's semantics (conditions, UTF-8 key order, input limits).
 * Every call is atomic; values are copied in and out, so callers never share stored state.
 */
export class MemoryMetaStore implements MetaStore {
  readonly #partitions = new Map<string, Map<string, Stored>>()
  #closed = false

  async get(pk: string, sk: string, _options?: GetOptions): Promise<VersionedItem | undefined> {
    this.#checkOpen()
    validateKey(pk, sk)
    return this.#read(pk, sk)
  }

  async query(pk: string, options: QueryOptions = {}): Promise<QueryPage> {
    this.#checkOpen()
    const { prefix, limit, reverse } = validateQuery(pk, options)
    const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor, pk, prefix, reverse)
    const direction = reverse ? -1 : 1
    const sks = [...(this.#partitions.get(pk)?.keys() ?? [])]
      .filter(sk => sk.startsWith(prefix) && (after === undefined || compareKeys(sk, after) * direction > 0))
      .sort((a, b) => compareKeys(a, b) * direction)
    const page = sks.slice(0, limit)
    const items = page.map(sk => this.#read(pk, sk) as VersionedItem)
    const more = sks.length > limit
    return more
      ? { items, cursor: encodeCursor({ pk, prefix, reverse, lastSk: page[page.length - 1] }) }
      : { items }
  }

  async put(pk: string, sk: string, value: ItemValue, condition: WriteCondition): Promise<number> {
    this.#checkOpen()
    validateKey(pk, sk)
    validateValue(value)
    validateCondition(condition)
    const current = this.#partitions.get(pk)?.get(sk)
    if (!conditionHolds(current, condition)) throw metaStoreConflict(pk, sk, condition, this.#read(pk, sk))
    const version = nextVersion(condition)
    let partition = this.#partitions.get(pk)
    if (partition === undefined) {
      partition = new Map()
      this.#partitions.set(pk, partition)
    }
    partition.set(sk, { version, value: copyValue(value) })
    return version
  }

  async delete(pk: string, sk: string, condition: WriteCondition): Promise<void> {
    this.#checkOpen()
    validateKey(pk, sk)
    validateCondition(condition)
    const partition = this.#partitions.get(pk)
    if (!conditionHolds(partition?.get(sk), condition))
      throw metaStoreConflict(pk, sk, condition, this.#read(pk, sk))
    partition?.delete(sk)
    if (partition?.size === 0) this.#partitions.delete(pk)
  }

  async close(): Promise<void> {
    this.#closed = true
  }

  #read(pk: string, sk: string): VersionedItem | undefined {
    const stored = this.#partitions.get(pk)?.get(sk)
    return stored === undefined
      ? undefined
      : { pk, sk, version: stored.version, value: copyValue(stored.value) }
  }

  #checkOpen(): void {
    assert(!this.#closed, 'MemoryMetaStore used after close()')
  }
}
