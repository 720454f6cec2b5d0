import { ArrowBatchWriter } from '@sluice/core/arrow'
import { FlussError } from '@sluice/core/errors'
import { KvRecordBatch } from '@sluice/core/kvbatch'
import type { Schema, TableInfo } from '@sluice/core/metadata'
import { buildLogBatch, ChangeType } from '@sluice/core/record'
import {
  CompactedRowDecoder,
  CompactedRowEncoder,
  decodeValue,
  encodeValue,
  type Row,
} from '@sluice/core/row'
import type { FakeBucketLog } from './fake-bucket-log.js'

interface KvWriterState {
  lastSequence: number
  /** The last few batches, to answer a duplicate with the log end offset it produced. */
  readonly recent: { readonly sequence: number; readonly logEndOffset: number }[]
}

/** Batches a writer's duplicates are recognised against (as in FakeBucketLog). */
const RECENT_BATCHES = 5

interface Change {
  readonly type: ChangeType
  readonly row: Row
}

/**
 * The KV store of one primary-key bucket in a fake tablet server: a last-row-wins map of encoded
 * key → stored value (`[schemaId][CompactedRow]`, written with the table's latest schema), kept in
 * key byte order like RocksDB. Each PUT_KV batch is applied record by record (partial updates and
 * partial deletes as Fluss's PartialUpdater does) and produces a changelog (+I, -U/+U, -D) appended
 * to the bucket's log as one Arrow batch; a batch with no change still appends an empty batch, which
 * takes one offset. Idempotent writers are deduplicated by batch sequence.
 */
export class FakeKvStore {
  readonly #entries = new Map<string, { readonly key: Buffer; readonly value: Buffer }>()
  readonly #writers = new Map<bigint, KvWriterState>()

  constructor(
    readonly table: () => { readonly info: TableInfo; readonly schemas: ReadonlyMap<number, Schema> },
    readonly log: FakeBucketLog,
  ) {}

  info(): TableInfo {
    return this.table().info
  }

  get size(): number {
    return this.#entries.size
  }

  /** The stored value of a key, or null. */
  get(key: Uint8Array): Buffer | null {
    return this.#entries.get(Buffer.from(key).toString('hex'))?.value ?? null
  }

  /** Stores a value as it is (tests use it to plant rows of older schemas). */
  put(key: Uint8Array, value: Uint8Array): void {
    this.#entries.set(Buffer.from(key).toString('hex'), { key: Buffer.from(key), value: Buffer.from(value) })
  }

  /** Values of every key starting with `prefix`, in key order. */
  prefix(prefix: Uint8Array): Buffer[] {
    const p = Buffer.from(prefix)
    return this.#sorted()
      .filter(e => e.key.length >= p.length && e.key.subarray(0, p.length).equals(p))
      .map(e => e.value)
  }

  /** The first `limit` values in key order. */
  first(limit: number): Buffer[] {
    return this.#sorted()
      .slice(0, limit)
      .map(e => e.value)
  }

  /** Every stored row decoded with the latest schema (rows of older schemas are NULL-padded). */
  rows(): Row[] {
    return this.#sorted().map(e => this.#decode(e.value))
  }

  /** Applies one PUT_KV batch; returns the log end offset after its changelog batch. */
  apply(records: Uint8Array, targetColumns: readonly number[], nowMs: number): number {
    const batch = KvRecordBatch.from(records)
    const writerId = batch.writerId
    const state = writerId >= 0n ? this.#writers.get(writerId) : undefined
    if (writerId >= 0n) {
      const duplicate = state?.recent.find(r => r.sequence === batch.batchSequence)
      if (duplicate !== undefined) return duplicate.logEndOffset
      const expected = state === undefined ? 0 : state.lastSequence + 1
      if (batch.batchSequence !== expected) {
        throw new FlussError(
          'OUT_OF_ORDER_SEQUENCE_EXCEPTION',
          `Writer ${writerId}: expected batch sequence ${expected}, got ${batch.batchSequence}`,
        )
      }
    }
    const changes: Change[] = []
    for (const record of batch) {
      this.#applyRecord(record.key, record.row, batch.schemaId, targetColumns, changes)
    }
    this.log.append(this.#changelog(changes), nowMs)
    const logEndOffset = this.log.endOffset
    if (writerId >= 0n) {
      const next = state ?? { lastSequence: -1, recent: [] }
      next.lastSequence = batch.batchSequence
      next.recent.push({ sequence: batch.batchSequence, logEndOffset })
      if (next.recent.length > RECENT_BATCHES) next.recent.shift()
      this.#writers.set(writerId, next)
    }
    return logEndOffset
  }

  #applyRecord(
    key: Buffer,
    value: Buffer | null,
    schemaId: number,
    targets: readonly number[],
    changes: Change[],
  ): void {
    const id = key.toString('hex')
    const stored = this.#entries.get(id)
    const old = stored === undefined ? undefined : this.#decode(stored.value)
    const partial = targets.length > 0
    if (value === null) {
      if (old === undefined) return
      const keep = partial ? this.#partialDelete(old, targets) : undefined
      if (keep === undefined) {
        this.#entries.delete(id)
        changes.push({ type: ChangeType.DELETE, row: old })
      } else {
        this.#store(key, keep)
        changes.push(
          { type: ChangeType.UPDATE_BEFORE, row: old },
          { type: ChangeType.UPDATE_AFTER, row: keep },
        )
      }
      return
    }
    const incoming = this.#decodeRow(schemaId, value)
    if (partial && old !== undefined && this.#onlyPrimaryKey(targets)) return
    const merged = partial ? incoming.map((v, i) => (targets.includes(i) ? v : (old?.[i] ?? null))) : incoming
    this.#store(key, merged)
    if (old === undefined) changes.push({ type: ChangeType.INSERT, row: merged })
    else
      changes.push(
        { type: ChangeType.UPDATE_BEFORE, row: old },
        { type: ChangeType.UPDATE_AFTER, row: merged },
      )
  }

  /** The row left after a partial delete, or undefined when the whole row goes. */
  #partialDelete(old: Row, targets: readonly number[]): Row | undefined {
    if (old.every((v, i) => targets.includes(i) || v === null)) return undefined
    const pk = this.#primaryKeyIndexes()
    return old.map((v, i) => (targets.includes(i) && !pk.includes(i) ? null : v))
  }

  #onlyPrimaryKey(targets: readonly number[]): boolean {
    const pk = this.#primaryKeyIndexes()
    return targets.length === pk.length && targets.every(t => pk.includes(t))
  }

  #primaryKeyIndexes(): number[] {
    return this.info().schema.primaryKeyIndexes
  }

  #store(key: Buffer, row: Row): void {
    const info = this.info()
    const bytes = new CompactedRowEncoder(info.rowType).encode(row)
    this.put(key, encodeValue(info.schemaId, bytes))
  }

  #decode(value: Buffer): Row {
    const { schemaId, row } = decodeValue(value)
    return this.#decodeRow(schemaId, row)
  }

  #decodeRow(schemaId: number, row: Buffer): Row {
    const { info, schemas } = this.table()
    const schema = schemas.get(schemaId)
    if (schema === undefined) throw new FlussError('SCHEMA_NOT_EXIST', `Schema ${schemaId} does not exist`)
    const decoded = new CompactedRowDecoder(schema.rowType).decode(row)
    // Columns are only ever added at the end: an older row is the prefix of a latest-schema row.
    return info.rowType.fields.map((_, i) => decoded[i] ?? null)
  }

  #changelog(changes: readonly Change[]): Buffer {
    const info = this.info()
    if (changes.length === 0) {
      return buildLogBatch({
        schemaId: info.schemaId,
        appendOnly: false,
        changeTypes: [],
        recordCount: 0,
        records: Buffer.alloc(0),
      })
    }
    const arrow = new ArrowBatchWriter(info.rowType)
    for (const c of changes) arrow.addRow(c.row)
    return buildLogBatch({
      schemaId: info.schemaId,
      appendOnly: false,
      changeTypes: changes.map(c => c.type),
      recordCount: changes.length,
      records: arrow.finish(),
    })
  }

  #sorted(): { readonly key: Buffer; readonly value: Buffer }[] {
    return [...this.#entries.values()].sort((a, b) => Buffer.compare(a.key, b.key))
  }
}
