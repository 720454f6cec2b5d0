import { ChangeType, type LogRecordBatch, MemoryLogRecords } from '@sluice/core/record'
import type { ChangelogFormat } from './changelog-builder.js'
import { changelogChanges } from './changelog-reader.js'
import type { BatchAnchor, KvMeta } from './kv-meta.js'
import { type KvPreWriteBuffer, keyIdOf } from './kv-pre-write-buffer.js'
import type { KvSchemaSource, KvValue } from './kv-schemas.js'
import type { KvChangelogLog } from './kv-tablet-types.js'
import type { KvWrite, RocksDbKv } from './rocksdb-kv.js'

/** One record of the changelog as the KV store applies it (-U records are skipped). */
export interface ChangelogRecord {
  readonly offset: number
  readonly changeType: ChangeType
  readonly key: Buffer
  /** The stored value; null for a delete. */
  readonly value: KvValue | null
}

export function anchorOf(batch: LogRecordBatch): BatchAnchor {
  return {
    baseOffset: batch.baseOffset,
    lastOffset: batch.lastOffset,
    crc: batch.crc,
    commitTimestamp: batch.commitTimestamp,
  }
}

/** The changelog batches holding offsets in [from, to), read `maxBytes` at a time. */
export async function* changelogBatches(
  log: KvChangelogLog,
  from: number,
  to: number,
  maxBytes: number,
): AsyncGenerator<LogRecordBatch> {
  let next = from
  while (next < to) {
    const { records } = await log.read({
      fetchOffset: next,
      maxBytes,
      isolation: 'LOG_END',
      minOneMessage: true,
    })
    if (records.length === 0) return
    for (const batch of new MemoryLogRecords(records).batches()) {
      if (batch.nextOffset <= next) continue
      if (batch.baseOffset >= to) return
      yield batch
      next = batch.nextOffset
    }
  }
}

/** Decodes a changelog batch into KV puts and deletes, keyed like the writers key them. */
export function changelogRecords(
  batch: LogRecordBatch,
  schemas: KvSchemaSource,
  format: ChangelogFormat = 'ARROW',
): ChangelogRecord[] {
  if (batch.recordCount === 0) return []
  const schema = schemas.context(batch.schemaId)
  const changes = changelogChanges(batch, schema.rowType, format, schema.decoder)
  const records: ChangelogRecord[] = []
  for (let i = 0; i < changes.changeTypes.length; i++) {
    const changeType = changes.changeTypes[i]
    if (changeType === ChangeType.UPDATE_BEFORE) continue
    const row = changes.rowAt(i)
    const key = schema.keyEncoder.encodeKey(row)
    const value = changeType === ChangeType.DELETE ? null : schema.encode(row)
    records.push({ offset: batch.baseOffset + i, changeType, key, value })
  }
  return records
}

/**
 * Whether RocksDB's recorded state still matches the log: its flushed offset lies within the log,
 * and the batch holding the offset before it is the same batch (same base and last offset, CRC and
 * commit timestamp). Anything else means the log moved on without the store (truncation, new data
 * at the same offsets, retention past it) and the store must be rebuilt.
 */
export async function isMetaConsistent(meta: KvMeta | null, log: KvChangelogLog): Promise<boolean> {
  if (meta === null) return false
  const flushed = meta.flushedOffset
  if (flushed < log.logStartOffset || flushed > log.logEndOffset) return false
  if (flushed === log.logStartOffset) return true
  const anchor = meta.anchor
  if (anchor === null) return false
  const { records } = await log.read({
    fetchOffset: flushed - 1,
    maxBytes: 1,
    isolation: 'LOG_END',
    minOneMessage: true,
  })
  const first = records.length === 0 ? undefined : new MemoryLogRecords(records).batches().next().value
  if (first === undefined) return false
  const found = anchorOf(first)
  return (
    found.baseOffset === anchor.baseOffset &&
    found.lastOffset === anchor.lastOffset &&
    found.crc === anchor.crc &&
    found.commitTimestamp === anchor.commitTimestamp
  )
}

/** Where a replay left the store. */
export interface ReplayResult {
  readonly meta: KvMeta
  /** Batches whose records went (wholly or partly) to the pre-write buffer, oldest first. */
  readonly pendingBatches: BatchAnchor[]
  /** The offset the replay started from (the store's flushed offset, or the log start). */
  readonly fromOffset: number
  /** Changelog records replayed (into RocksDB or the pre-write buffer). */
  readonly records: number
}

/**
 * Rebuilds from the changelog (Fluss's `KvRecoverHelper`): records below the high watermark (the
 * acknowledged state) are written to RocksDB in batches of about `maxBytes`, each with its meta;
 * records from the high watermark to the log end go to the pre-write buffer at their offsets, to be
 * flushed when the high watermark passes them. +I/+U are puts, -D deletes, -U is skipped.
 */
export async function replayChangelog(
  start: KvMeta,
  log: KvChangelogLog,
  schemas: KvSchemaSource,
  rocks: RocksDbKv,
  buffer: KvPreWriteBuffer,
  maxBytes: number,
  format: ChangelogFormat = 'ARROW',
): Promise<ReplayResult> {
  const highWatermark = Math.max(log.highWatermark, start.flushedOffset)
  const countRows = start.rowCount >= 0
  let meta = start
  let writes: KvWrite[] = []
  let writeBytes = 0
  let rowCount = start.rowCount
  const pendingBatches: BatchAnchor[] = []
  let records = 0
  for await (const batch of changelogBatches(log, start.flushedOffset, log.logEndOffset, maxBytes)) {
    for (const record of changelogRecords(batch, schemas, format)) {
      if (record.offset < start.flushedOffset) continue
      records++
      const delta = !countRows
        ? 0
        : record.changeType === ChangeType.INSERT
          ? 1
          : record.changeType === ChangeType.DELETE
            ? -1
            : 0
      if (record.offset >= highWatermark) {
        buffer.put(record.key, keyIdOf(record.key), record.value, record.offset, delta)
        continue
      }
      writes.push(record)
      writeBytes += record.key.length + (record.value?.bytes.length ?? 0)
      rowCount += delta
    }
    if (batch.baseOffset < highWatermark) {
      const applied = Math.min(batch.nextOffset, highWatermark)
      meta = { flushedOffset: applied, rowCount, anchor: anchorOf(batch) }
    }
    if (batch.nextOffset > highWatermark) pendingBatches.push(anchorOf(batch))
    if (writeBytes >= maxBytes) {
      await rocks.write(writes, meta)
      writes = []
      writeBytes = 0
    }
  }
  await rocks.write(writes, meta)
  return { meta, pendingBatches, fromOffset: start.flushedOffset, records }
}
