import { readFileSync } from 'node:fs'
import { AggFunctions, Schema } from '@sluice/core/metadata'
import type { Row } from '@sluice/core/row'
import { DataTypes } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import { readChangelog, TestingKvBatches, TestingKvBucket } from '../testing/kv.js'
import {
  bitmap64Of,
  bitmap64Values,
  deserializeBitmap64,
  serializeBitmap64,
} from './rowmerger/aggregate/roaring-bitmap64.js'
import { fixedSchemaSource } from './table-schemas.js'

let bucket: TestingKvBucket

afterEach(async () => {
  await bucket?.close()
})

/** What RoaringBitmap 1.3.0 returns for Fluss's rbm64 merge of {10, 20} and {20, 30}. */
const JAVA_UNION_10_20_30 = (
  JSON.parse(
    readFileSync(new URL('./rowmerger/aggregate/test-fixtures/rbm64-golden.json', import.meta.url), 'utf8'),
  ) as { cases: { kind: string; acc?: string; input?: string; hex?: string }[] }
).cases.find(c => c.kind === 'agg' && c.acc === 'of_10_20' && c.input === 'of_20_30')?.hex as string

const schema = Schema.newBuilder()
  .column('id', DataTypes.INT())
  .column('users', DataTypes.BYTES(), AggFunctions.RBM64())
  .column('note', DataTypes.STRING())
  .primaryKey('id')
  .build()
const kv = new TestingKvBatches(schema)
const AGG = { 'table.merge-engine': 'AGGREGATION' }

const bitmap = (...values: (number | bigint)[]) => serializeBitmap64(bitmap64Of(values))
const hex = (v: unknown) => Buffer.from(v as Uint8Array).toString('hex')

async function changelog(from?: number) {
  const records = await readChangelog(bucket.log, fixedSchemaSource(1, schema), from)
  return records.map(([offset, type, row]) => [
    offset,
    type,
    [row[0], row[1] === null ? null : hex(row[1]), row[2]],
  ])
}

describe('rbm64 aggregation through the KV tablet', () => {
  it('ORs bitmaps per key across batches, ignores NULL inputs and writes the bytes Java writes', async () => {
    bucket = await TestingKvBucket.open(schema, AGG)
    const a = bitmap(10, 20)
    const c = bitmap(1n << 40n, -1n)
    await bucket.kv.putAsLeader(
      kv.batch([
        [1, a, 'a'],
        [1, null, 'b'],
        [1, bitmap(20, 30), null],
        [2, c, 'x'],
      ]),
    )
    expect(await changelog()).toEqual([
      [0, '+I', [1, hex(a), 'a']],
      [1, '-U', [1, hex(a), 'a']],
      [2, '+U', [1, hex(a), 'b']],
      [3, '-U', [1, hex(a), 'b']],
      [4, '+U', [1, JAVA_UNION_10_20_30, 'b']],
      [5, '+I', [2, hex(c), 'x']],
    ])
    await bucket.acknowledge()
    await bucket.kv.putAsLeader(
      kv.batch([
        [1, bitmap(1n << 32n, 10), null],
        [3, null, 'n'],
      ]),
    )
    const merged = await changelog(6)
    expect(merged.map(([offset, type, row]) => [offset, type, (row as Row)[0]])).toEqual([
      [6, '-U', 1],
      [7, '+U', 1],
      [8, '+I', 3],
    ])
    const stored = Buffer.from((merged[1][2] as Row)[1] as string, 'hex')
    expect(bitmap64Values(deserializeBitmap64(stored))).toEqual([10n, 20n, 30n, 1n << 32n])
    expect((merged[2][2] as Row)[1]).toBeNull()
  })

  it('refuses a malformed bitmap with INVALID_REQUEST and appends nothing', async () => {
    bucket = await TestingKvBucket.open(schema, AGG)
    await bucket.kv.putAsLeader(kv.batch([[1, bitmap(1), 'a']]))
    const before = [bucket.log.logEndOffset, bucket.kv.pendingWrites]
    await expect(
      bucket.kv.putAsLeader(
        kv.batch([
          [2, bitmap(5), 'b'],
          [1, new Uint8Array([1, 2, 3]), null],
        ]),
      ),
    ).rejects.toMatchObject({
      errorName: 'INVALID_REQUEST',
      message: expect.stringMatching(
        /^Unable to deserialize 64-bit roaring bitmap: key count runs past the end/,
      ),
    })
    expect([bucket.log.logEndOffset, bucket.kv.pendingWrites]).toEqual(before)
    await bucket.kv.putAsLeader(kv.batch([[1, bitmap(2), null]]))
    const last = (await changelog(1)).at(-1) as [number, string, Row]
    expect(bitmap64Values(deserializeBitmap64(Buffer.from(last[2][1] as string, 'hex')))).toEqual([1n, 2n])
  })

  it('refuses to merge into an rbm64 column that is not BYTES (table creation refuses it first)', async () => {
    const wrong = Schema.newBuilder()
      .column('id', DataTypes.INT())
      .column('users', DataTypes.BINARY(8), AggFunctions.RBM64())
      .primaryKey('id')
      .build()
    bucket = await TestingKvBucket.open(wrong, AGG)
    await expect(
      bucket.kv.putAsLeader(
        new TestingKvBatches(wrong).batch([
          [1, new Uint8Array(8)],
          [1, new Uint8Array(8)],
        ]),
      ),
    ).rejects.toMatchObject({
      errorName: 'INVALID_CONFIG_EXCEPTION',
      message: expect.stringContaining(
        "Data type for rbm64 column must be part of [BYTES] but was 'BINARY(8)'.",
      ),
    })
    expect([bucket.log.logEndOffset, bucket.kv.pendingWrites]).toEqual([0, 0])
  })
})
