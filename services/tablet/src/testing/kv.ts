import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Configuration } from '@sluice/core/config'
import { KvRecordBatchBuilder } from '@sluice/core/kvbatch'
import type { Schema } from '@sluice/core/metadata'
import { type ChangeTypeShortString, changeTypeShortString, MemoryLogRecords } from '@sluice/core/record'
import { CompactedKeyEncoder, CompactedRowEncoder, type Row } from '@sluice/core/row'
import type { ChangelogFormat } from '../kv/changelog-builder.js'
import { changelogChanges } from '../kv/changelog-reader.js'
import { KvRowCache } from '../kv/kv-row-cache.js'
import type { KvKeys, KvSchemaSource } from '../kv/kv-schemas.js'
import { KvTablet } from '../kv/kv-tablet.js'
import type { KvTabletOptions } from '../kv/kv-tablet-types.js'
import { SMALL_ROCKSDB_OPTIONS } from '../kv/rocksdb-kv.js'
import { fixedSchemaSource } from '../kv/table-schemas.js'
import { LogTablet } from '../log/log-tablet.js'

/**
 * The row cache of every testing bucket: small (1 MiB), so that tests also see rows evicted; each
 * bucket's RocksDB has a segment of its own.
 */
export const TESTING_ROW_CACHE = new KvRowCache(1 << 20)

/** A record for `TestingKvBatches`: a row to upsert, or `{ delete: row }` (only its key columns matter). */
export type TestingKvRecord = Row | { readonly delete: Row }

/** Builds KV batches the way a client does: key = encoded primary key, value = CompactedRow. */
export class TestingKvBatches {
  readonly #keys: CompactedKeyEncoder
  readonly #rows: CompactedRowEncoder

  constructor(
    readonly schema: Schema,
    readonly schemaId = 1,
    keyColumns: readonly string[] = schema.primaryKeyColumnNames,
  ) {
    this.#keys = CompactedKeyEncoder.of(schema.rowType, keyColumns)
    this.#rows = new CompactedRowEncoder(schema.rowType)
  }

  key(row: Row): Buffer {
    return this.#keys.encodeKey(row)
  }

  batch(records: readonly TestingKvRecord[], writer?: { writerId: bigint; batchSequence: number }): Buffer {
    const builder = new KvRecordBatchBuilder({ schemaId: this.schemaId, writeLimitBytes: 64 << 20 })
    for (const record of records) {
      if (Array.isArray(record)) builder.append(this.#keys.encodeKey(record), this.#rows.encode(record))
      else builder.append(this.#keys.encodeKey((record as { delete: Row }).delete), null)
    }
    if (writer !== undefined) builder.setWriterState(writer.writerId, writer.batchSequence)
    return Buffer.from(builder.build())
  }
}

/** One changelog record read back from the log. */
export interface TestingChangelogRecord {
  readonly offset: number
  readonly type: ChangeTypeShortString
  readonly row: Row
}

/** One changelog batch read back from the log. */
export interface TestingChangelogBatch {
  readonly baseOffset: number
  readonly lastOffset: number
  readonly schemaId: number
  readonly writerId: number
  readonly batchSequence: number
  readonly records: TestingChangelogRecord[]
}

/** Reads every batch of the log from `from` (to the log end) and decodes its records. */
export async function readChangelogBatches(
  log: LogTablet,
  schemas: Pick<KvSchemaSource, 'context'>,
  from = log.logStartOffset,
  format: ChangelogFormat = 'ARROW',
): Promise<TestingChangelogBatch[]> {
  const { records } = await log.read({
    fetchOffset: from,
    maxBytes: 64 << 20,
    isolation: 'LOG_END',
    minOneMessage: true,
  })
  const batches: TestingChangelogBatch[] = []
  for (const batch of new MemoryLogRecords(records).validateAll()) {
    const { schema } = schemas.context(batch.schemaId)
    const changes = changelogChanges(batch, schema.rowType, format)
    const decoded = changes.changeTypes.map((type, i) => ({
      offset: batch.baseOffset + i,
      type: changeTypeShortString(type),
      row: changes.rowAt(i),
    }))
    batches.push({
      baseOffset: batch.baseOffset,
      lastOffset: batch.lastOffset,
      schemaId: batch.schemaId,
      writerId: batch.writerId,
      batchSequence: batch.batchSequence,
      records: decoded,
    })
  }
  return batches
}

/** The changelog from `from` as `[offset, type, row]` triples. */
export async function readChangelog(
  log: LogTablet,
  schemas: Pick<KvSchemaSource, 'context'>,
  from?: number,
  format: ChangelogFormat = 'ARROW',
) {
  const batches = await readChangelogBatches(log, schemas, from, format)
  return batches.flatMap(b => b.records.map(r => [r.offset, r.type, r.row] as const))
}

/** Options of a testing bucket's KvTablet, and how its keys are made (unless `schemas` is given). */
export type TestingKvOptions = Partial<KvTabletOptions> & Partial<KvKeys>

/** A bucket for tests: a LogTablet and a KvTablet on it, in a fresh temporary directory. */
export class TestingKvBucket {
  private constructor(
    readonly dir: string,
    readonly log: LogTablet,
    public kv: KvTablet,
    readonly options: KvTabletOptions,
    readonly schema: Schema,
  ) {}

  static async open(
    schema: Schema,
    properties: Record<string, string> = {},
    overrides: TestingKvOptions = {},
  ): Promise<TestingKvBucket> {
    const dir = await mkdtemp(join(tmpdir(), 'sluice-kv-'))
    const log = await LogTablet.open(join(dir, 'log'), testingLogOptions())
    const { physicalPrimaryKeys, primaryKeyEncoder, primaryKeyDecoder, ...kvOverrides } = overrides
    const options: KvTabletOptions = {
      log,
      schemas: fixedSchemaSource(1, schema, keysOf(overrides)),
      tableConfig: new Configuration(properties),
      rocksDb: { ...SMALL_ROCKSDB_OPTIONS, rowCache: TESTING_ROW_CACHE },
      recoverBatchBytes: 1 << 20,
      maxQueuedOperations: 100,
      maxPendingBytes: 64 << 20,
      ...kvOverrides,
    }
    try {
      const kv = await KvTablet.open(join(dir, 'kv'), options)
      return new TestingKvBucket(dir, log, kv, options, schema)
    } catch (e) {
      await log.close()
      await rm(dir, { recursive: true, force: true })
      throw e
    }
  }

  /** Acknowledges everything appended: flush the KV store up to the log end, then move the HW there. */
  async acknowledge(): Promise<number> {
    const flushed = await this.kv.flush(this.log.logEndOffset)
    this.log.updateHighWatermark(flushed)
    return flushed
  }

  /** Closes the KV store (unflushed writes are dropped) and opens it again from the log. */
  async reopenKv(overrides: TestingKvOptions = {}): Promise<KvTablet> {
    await this.kv.close()
    const { physicalPrimaryKeys, primaryKeyEncoder, primaryKeyDecoder, ...kvOverrides } = overrides
    const keys = keysOf(overrides)
    const schemas = keys === undefined ? {} : { schemas: fixedSchemaSource(1, this.schema, keys) }
    this.kv = await KvTablet.open(join(this.dir, 'kv'), { ...this.options, ...schemas, ...kvOverrides })
    return this.kv
  }

  async close(): Promise<void> {
    await this.kv.close()
    await this.log.close()
    await rm(this.dir, { recursive: true, force: true })
  }
}

/** The key settings among `overrides` (those named, even as undefined), or undefined when none is. */
function keysOf(overrides: TestingKvOptions): Partial<KvKeys> | undefined {
  const names = ['physicalPrimaryKeys', 'primaryKeyEncoder', 'primaryKeyDecoder'] as const
  const named = names.filter(n => n in overrides)
  return named.length === 0 ? undefined : Object.fromEntries(named.map(n => [n, overrides[n]]))
}

export function testingLogOptions() {
  return {
    segmentBytes: 8 << 20,
    indexIntervalBytes: 4096,
    indexBytes: 1 << 20,
    writerExpirationMs: 3_600_000,
    highWatermarkCheckpointIntervalMs: 0,
    maxQueuedOperations: 100,
  }
}
