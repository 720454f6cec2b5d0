import { join } from 'node:path'
import { MemoryBlobStore } from '@sluice/core/blobstore'
import { FlussError } from '@sluice/core/errors'
import { applySchemaChanges, ColumnMapping, Schema, TableDescriptor } from '@sluice/core/metadata'
import { MemoryMetaStore } from '@sluice/core/metastore'
import { decodeCompactedRow, decodeValue, type Row } from '@sluice/core/row'
import { DataTypes } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import { readChangelogBatches, TestingKvBatches, TestingKvBucket } from '../../testing/kv.js'
import { fixedSchemaSource, TableSchemas } from '../table-schemas.js'
import { openKvTabletWithRecovery } from './kv-recovery-open.js'
import { KvSnapshotStore } from './kv-snapshot-store.js'
import { KvSnapshotter } from './kv-snapshotter.js'

/**
 * A KV snapshot taken under schema 1, then ADD COLUMN (with a default), then RENAME + widen: a new
 * leader restores the snapshot, replays the changelog of all three schema ids, and serves every key
 * under the latest schema (and under the first, for a reader that has not refreshed).
 */
const BUCKET = { tableId: 11, bucket: 0 }
const v1 = Schema.newBuilder()
  .column('id', DataTypes.INT())
  .column('a', DataTypes.INT())
  .column('b', DataTypes.STRING())
  .column('c', DataTypes.FLOAT())
  .primaryKey('id')
  .build()
const t1 = TableDescriptor.builder().schema(v1).distributedBy(1).build()
const t2 = applySchemaChanges(t1, [
  { kind: 'add', name: 'region', dataType: DataTypes.STRING(), defaultValue: 'eu' },
]) as TableDescriptor
const t3 = applySchemaChanges(t2, [
  { kind: 'rename', name: 'a', newName: 'amount' },
  { kind: 'modify', name: 'amount', dataType: DataTypes.BIGINT() },
  { kind: 'modify', name: 'c', dataType: DataTypes.DOUBLE() },
]) as TableDescriptor
const v2 = t2.schema
const v3 = t3.schema
const versions = new Map([
  [1, v1],
  [2, v2],
  [3, v3],
])
const keys = { physicalPrimaryKeys: ['id'] }

let bucket: TestingKvBucket | undefined

afterEach(async () => {
  await bucket?.close()
  bucket = undefined
})

/** The schemas a restarted tablet server loads: the latest from TableInfo, older ones on demand. */
async function restartedSchemas(known = versions): Promise<TableSchemas> {
  const schemas = new TableSchemas(3, v3, keys, async id => {
    const schema = known.get(id)
    if (schema === undefined) throw new FlussError('SCHEMA_NOT_EXIST', `Schema with ID ${id} not found`)
    return schema
  })
  await schemas.preload()
  return schemas
}

/** The stored value of each id, read as rows of `reader` by column id. */
async function lookupAs(reader: Schema, ids: number[]): Promise<(Row | null)[]> {
  const kv = bucket!.kv
  const encoder = new TestingKvBatches(v1, 1)
  const values = await kv.lookup(ids.map(id => encoder.key([id, null, null, null])))
  return values.map(value => {
    if (value === null) return null
    const { schemaId, row } = decodeValue(value)
    const stored = versions.get(schemaId) as Schema
    return ColumnMapping.between(stored, reader).map(decodeCompactedRow(row, stored.rowType))
  })
}

describe('KV snapshot restore after schema changes', () => {
  it('a new leader restores a schema-1 snapshot, replays schemas 1..3 and serves the latest schema', async () => {
    const schemas = fixedSchemaSource(1, v1)
    const blobStore = new MemoryBlobStore()
    const metaStore = new MemoryMetaStore()
    bucket = await TestingKvBucket.open(v1, {}, { schemas })
    const w1 = new TestingKvBatches(v1, 1)
    await bucket.kv.putAsLeader(
      w1.batch([
        [1, 10, 'one', 0.5],
        [2, 20, 'two', 1.5],
        [3, 30, 'three', 2.5],
        [6, 60, 'six', 6.5],
      ]),
    )
    await bucket.acknowledge()
    const snapshotter = new KvSnapshotter({
      tableBucket: BUCKET,
      kv: bucket.kv,
      leaderEpoch: 1,
      blobStore,
      metaStore,
      checkpointDir: join(bucket.dir, 'checkpoints'),
      intervalMs: 600_000,
      numRetained: 2,
      sleep: async () => {},
      random: () => 0.5,
    })
    const { snapshot } = await snapshotter.snapshotNow()
    expect(snapshot?.logOffset).toBe(4)

    // ALTER TABLE ADD COLUMN region STRING DEFAULT 'eu'.
    schemas.add(2, v2)
    const w2 = new TestingKvBatches(v2, 2)
    await bucket.kv.putAsLeader(
      w2.batch([
        [4, 40, 'four', 4.5, 'eu'],
        [1, 11, 'one', 0.5, 'us'],
      ]),
    )
    // ALTER TABLE RENAME a TO amount, MODIFY amount BIGINT, MODIFY c DOUBLE.
    schemas.add(3, v3)
    const w3 = new TestingKvBatches(v3, 3)
    await bucket.kv.putAsLeader(
      w3.batch([
        [5, 5_000_000_000n, 'five', 5.1, 'eu'],
        [2, 1n << 40n, 'two', 2.25, 'apac'],
        { delete: [4, null, null, null, null] },
      ]),
    )
    // A writer still on schema 1 updates a key stored under schema 2.
    await bucket.kv.putAsLeader(w1.batch([[1, 12, 'uno', 1.25]]))
    await bucket.acknowledge()
    const ids = [1, 2, 3, 4, 5, 6]
    const before = await lookupAs(v3, ids)
    const logEnd = bucket.log.logEndOffset

    // The old leader is gone; the new one starts from an empty directory with freshly loaded schemas.
    await bucket.kv.close()
    const restarted = await restartedSchemas()
    const { kv, report } = await openKvTabletWithRecovery({
      bucketDir: join(bucket.dir, 'kv-new-leader'),
      tableBucket: BUCKET,
      options: { ...bucket.options, schemas: restarted },
      snapshotStore: new KvSnapshotStore({ blobStore, metaStore, sleep: async () => {} }),
    })
    bucket.kv = kv
    expect(report).toMatchObject({ path: 'snapshot', snapshotId: snapshot?.snapshotId, replayFromOffset: 4 })
    expect(report.replayedRecords).toBeGreaterThan(0)

    const expected = [
      // The old writer's whole-row upsert has no region: NULL, not the value it replaced.
      [1, 12n, 'uno', 1.25, null],
      [2, 1n << 40n, 'two', 2.25, 'apac'],
      [3, 30n, 'three', 2.5, null],
      null,
      [5, 5_000_000_000n, 'five', 5.1, 'eu'],
      [6, 60n, 'six', 6.5, null],
    ]
    expect(await lookupAs(v3, ids)).toEqual(expected)
    expect(before).toEqual(expected)
    expect(kv.rowCount).toBe(5)

    // A reader still on schema 1: renamed and widened columns by id, values narrowed back when they fit.
    const [one, two, three] = await lookupAs(v1, [1, 3, 6])
    expect([one, two, three]).toEqual([
      [1, 12, 'uno', 1.25],
      [3, 30, 'three', 2.5],
      [6, 60, 'six', 6.5],
    ])
    await expect(lookupAs(v1, [5])).rejects.toMatchObject({ errorName: 'STALE_SCHEMA' })

    // The recovered store writes the changelog in the latest schema, including the before-image of a
    // row restored from the snapshot in schema 1.
    await kv.putAsLeader(
      w3.batch([
        [6, 61n, 'six', 6.75, 'eu'],
        [3, 31n, 'three', 3.5, null],
      ]),
    )
    await bucket.acknowledge()
    const tail = await readChangelogBatches(bucket.log, restarted, logEnd)
    expect(tail.map(b => b.schemaId)).toEqual([3])
    expect(tail.flatMap(b => b.records.map(r => [r.type, r.row]))).toEqual([
      ['-U', [6, 60n, 'six', 6.5, null]],
      ['+U', [6, 61n, 'six', 6.75, 'eu']],
      ['-U', [3, 30n, 'three', 2.5, null]],
      ['+U', [3, 31n, 'three', 3.5, null]],
    ])
  })

  it('refuses to recover (rather than skip rows) when a schema of the changelog cannot be loaded', async () => {
    const schemas = fixedSchemaSource(1, v1)
    bucket = await TestingKvBucket.open(v1, {}, { schemas })
    await bucket.kv.putAsLeader(new TestingKvBatches(v1, 1).batch([[1, 10, 'one', 0.5]]))
    schemas.add(2, v2)
    await bucket.kv.putAsLeader(new TestingKvBatches(v2, 2).batch([[2, 20, 'two', 1.5, 'eu']]))
    schemas.add(3, v3)
    await bucket.acknowledge()
    await bucket.kv.close()
    const withoutTwo = new Map([...versions].filter(([id]) => id !== 2))
    await expect(
      openKvTabletWithRecovery({
        bucketDir: join(bucket.dir, 'kv-new-leader'),
        tableBucket: BUCKET,
        options: { ...bucket.options, schemas: await restartedSchemas(withoutTwo) },
        snapshotStore: null,
      }),
    ).rejects.toMatchObject({ errorName: 'SCHEMA_NOT_EXIST' })
    bucket.kv = await bucket.reopenKv({ schemas: await restartedSchemas() })
    expect(bucket.kv.rowCount).toBe(2)
  })
})
