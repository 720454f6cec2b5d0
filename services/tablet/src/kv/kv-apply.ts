import type { ChangelogImage } from '@sluice/core/config'
import { assert } from '@sluice/core/errors'
import { ChangeType } from '@sluice/core/record'
import type { Value } from '@sluice/core/row'
import type { AutoIncrementIds } from './auto-increment-ids.js'
import type { ChangelogBuilder } from './changelog-builder.js'
import type { KvPreWriteBuffer } from './kv-pre-write-buffer.js'
import type { DecodedRecord } from './kv-records.js'
import { decodeKvValue, type KvSchemaSource, type KvValue, type SchemaContext } from './kv-schemas.js'
import type { RowMerger } from './rowmerger/row-merger.js'

/** Everything one put needs to run Fluss's write algorithm over its records. */
export interface ApplyContext {
  readonly merger: RowMerger
  readonly image: ChangelogImage
  readonly buffer: KvPreWriteBuffer
  readonly schemas: KvSchemaSource
  readonly latest: SchemaContext
  readonly changelog: ChangelogBuilder
  /**
   * The old value of each key the put reads: what the pre-write buffer held when the put read its
   * old values (a flush may have moved it to RocksDB since; null = pending delete), or the bytes
   * stored in RocksDB (null = absent), replaced by their decoded value on first use.
   */
  readonly oldValues: Map<string, KvValue | Buffer | null>
  /** Ids for new keys of a table with an auto-increment column, reserved for every upsert of the put. */
  readonly autoIncrementIds: AutoIncrementIds | null
}

/**
 * With the WAL image, a whole-row write of the plain default merger needs no old value: the result
 * is the new row either way, and inserts are logged as +U too (Fluss's lookup-skip optimization).
 */
export function skipsOldValues(merger: RowMerger, image: ChangelogImage, latest: SchemaContext): boolean {
  return image === 'WAL' && merger.replacesWholeRow && latest.autoIncrementIndex < 0
}

/**
 * Runs the records in order against the pre-write buffer (entries staged by this put, or pending
 * when the put read its old values), then the stored values (Fluss's
 * `KvTablet.processKvRecords`): each change is appended to the changelog and staged in the buffer at
 * the offset it will have. Returns the offset after the last change.
 */
export function applyRecords(
  ctx: ApplyContext,
  records: readonly DecodedRecord[],
  startOffset: number,
): number {
  // Stored values of older schemas are read as values of the latest one (by column id), so that
  // mergers and the changelog see one schema; they are stored again only when the put changes them.
  const oldValueOf = (keyId: string): KvValue | null => {
    const entry = ctx.buffer.get(keyId)
    if (entry !== undefined) return entry.value === null ? null : ctx.latest.adopt(entry.value, ctx.schemas)
    const old = ctx.oldValues.get(keyId)
    if (old === undefined || old === null) return null
    if (!(old instanceof Uint8Array)) return old
    const value = ctx.latest.adopt(decodeKvValue(ctx.schemas, old), ctx.schemas)
    ctx.oldValues.set(keyId, value)
    return value
  }
  const skipReads = skipsOldValues(ctx.merger, ctx.image, ctx.latest)
  let offset = startOffset
  for (const record of records) {
    const newValue = record.value
    if (newValue === null) {
      offset = applyDelete(ctx, record, oldValueOf, offset)
    } else if (skipReads) {
      offset = applyUpdate(ctx, record, null, newValue, offset)
    } else {
      const oldValue = oldValueOf(record.keyId)
      if (oldValue === null) {
        const inserted = withAutoIncrement(ctx, ctx.merger.merge(null, newValue))
        ctx.changelog.append(ChangeType.INSERT, inserted.row)
        ctx.buffer.put(record.key, record.keyId, inserted, offset, 1)
        offset += 1
      } else {
        const merged = ctx.merger.merge(oldValue, newValue)
        if (merged !== oldValue) offset = applyUpdate(ctx, record, oldValue, merged, offset)
      }
    }
  }
  return offset
}

function applyDelete(
  ctx: ApplyContext,
  record: DecodedRecord,
  oldValueOf: (keyId: string) => KvValue | null,
  offset: number,
): number {
  // IGNORE skips deletes; DISABLE was refused before any record was applied.
  if (ctx.merger.deleteBehavior !== 'ALLOW') return offset
  const oldValue = oldValueOf(record.keyId)
  if (oldValue === null) return offset
  const remaining = ctx.merger.delete(oldValue)
  if (remaining !== null) return applyUpdate(ctx, record, oldValue, remaining, offset)
  ctx.changelog.append(ChangeType.DELETE, oldValue.row)
  ctx.buffer.put(record.key, record.keyId, null, offset, -1)
  return offset + 1
}

function applyUpdate(
  ctx: ApplyContext,
  record: DecodedRecord,
  oldValue: KvValue | null,
  newValue: KvValue,
  offset: number,
): number {
  if (ctx.image === 'WAL') {
    ctx.changelog.append(ChangeType.UPDATE_AFTER, newValue.row)
    ctx.buffer.put(record.key, record.keyId, newValue, offset, 0)
    return offset + 1
  }
  ctx.changelog.append(ChangeType.UPDATE_BEFORE, (oldValue as KvValue).row)
  ctx.changelog.append(ChangeType.UPDATE_AFTER, newValue.row)
  ctx.buffer.put(record.key, record.keyId, newValue, offset + 1, 0)
  return offset + 2
}

/** A new key's value with the next auto-increment id (tables with an auto-increment column). */
function withAutoIncrement(ctx: ApplyContext, value: KvValue): KvValue {
  const index = ctx.latest.autoIncrementIndex
  if (index < 0) return value
  const ids = ctx.autoIncrementIds
  assert(ids !== null, 'a put on a table with an auto-increment column reserves its ids first')
  const schema = ctx.schemas.context(value.schemaId)
  const row: Value[] = value.row.slice()
  const id = ids.next()
  row[index] = schema.rowType.fields[index].type.type === 'BIGINT' ? BigInt(id) : id
  return schema.encode(row)
}
