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
import { fixedSchemaSource, type KvSchemaSource } from '../kv/kv-schemas.js'
import { KvTablet } from '../kv/kv-tablet.js'
import type { KvTabletOptions } from '../kv/kv-tablet-types.js'
import { SMALL_ROCKSDB_OPTIONS } from '../kv/rocksdb-kv.js'
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
  schemas: KvSchemaSource,
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
    const schema = schemas.byId(batch.schemaId) as Schema
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
  schemas: KvSchemaSource,
  from?: number,
  format: ChangelogFormat = 'ARROW',
) {
  const batches = await readChangelogBatches(log, schemas, from, format)
  return batches.flatMap(b => b.records.map(r => [r.offset, r.type, r.row] as const))
}

/** A bucket for tests: a LogTablet and a KvTablet on it, in a fresh temporary directory. */
export class TestingKvBucket {
  private constructor(
    readonly dir: string,
    readonly log: LogTablet,
    public kv: KvTablet,
    readonly options: KvTabletOptions,
  ) {}

  static async open(
    schema: Schema,
    properties: Record<string, string> = {},
    overrides: Partial<KvTabletOptions> = {},
  ): Promise<TestingKvBucket> {
    const dir = await mkdtemp(join(tmpdir(), 'sluice-kv-'))
    const log = await LogTablet.open(join(dir, 'log'), testingLogOptions())
    const options: KvTabletOptions = {
      log,
      schemas: fixedSchemaSource(1, schema),
      tableConfig: new Configuration(properties),
      physicalPrimaryKeys: schema.primaryKeyColumnNames,
      rocksDb: { ...SMALL_ROCKSDB_OPTIONS, rowCache: TESTING_ROW_CACHE },
      recoverBatchBytes: 1 << 20,
      maxQueuedOperations: 100,
      maxPendingBytes: 64 << 20,
      ...overrides,
    }
    try {
      return new TestingKvBucket(dir, log, await KvTablet.open(join(dir, 'kv'), options), options)
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
  async reopenKv(overrides: Partial<KvTabletOptions> = {}): Promise<KvTablet> {
    await this.kv.close()
    this.kv = await KvTablet.open(join(this.dir, 'kv'), { ...this.options, ...overrides })
    return this.kv
  }

  async close(): Promise<void> {
    await this.kv.close()
    await this.log.close()
    await rm(this.dir, { recursive: true, force: true })
  }
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
