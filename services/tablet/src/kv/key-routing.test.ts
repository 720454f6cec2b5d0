import { Schema, TableDescriptor, TableInfo } from '@sluice/core/metadata'
import { keyEncoderFor } from '@sluice/core/row'
import { DataTypes, notNull } from '@sluice/core/types'
import { describe, expect, it } from 'vitest'
import { keyRouter } from './key-routing.js'

const BUCKETS = 4
const schema = Schema.newBuilder()
  .column('id', notNull(DataTypes.INT()))
  .column('seq', notNull(DataTypes.INT()))
  .column('v', DataTypes.STRING())
  .primaryKey('id', 'seq')
  .build()

function tableOf(properties: Record<string, string>): TableInfo {
  const builder = TableDescriptor.builder().schema(schema).distributedBy(BUCKETS, 'id')
  for (const [k, v] of Object.entries(properties)) builder.property(k, v)
  return TableInfo.of({ databaseName: 'db', tableName: 't' }, 7, 1, builder.build(), 0, 0)
}

/** What a client computes for a prefix lookup of `id`: the bytes it sends and the bucket it picks. */
function clientPrefix(table: TableInfo, id: number): { bytes: Uint8Array; bucket: number } {
  const encoders = keyEncoderFor(table, table.rowType, table.bucketKeys)
  const row = [id, null, null]
  return {
    bytes: encoders.key.encodeKey(row),
    bucket: encoders.bucketing(encoders.bucketKey.encodeKeyView(row), BUCKETS),
  }
}

/** What a client computes for an upsert of (id, seq): the KV key and the bucket. */
function clientKey(table: TableInfo, id: number, seq: number): { bytes: Uint8Array; bucket: number } {
  const encoders = keyEncoderFor(table)
  const row = [id, seq, null]
  return {
    bytes: encoders.key.encodeKey(row),
    bucket: encoders.bucketing(encoders.bucketKey.encodeKeyView(row), BUCKETS),
  }
}

describe('keyRouter', () => {
  const cases = {
    'a table without a lake (compacted keys, Fluss hash)': tableOf({}),
    'an Iceberg lake table whose bucket key is part of the primary key (Iceberg bucketing)': tableOf({
      'table.datalake.format': 'iceberg',
      'table.kv.format-version': '2',
    }),
  }
  for (const [name, table] of Object.entries(cases)) {
    it(`agrees with the client on every key and prefix of ${name}`, () => {
      const router = keyRouter(table)
      const seen = new Set<number>()
      for (let id = -300; id < 300; id++) {
        const prefix = clientPrefix(table, id)
        expect(router.bucketOfPrefix(prefix.bytes), `prefix ${id}`).toBe(prefix.bucket)
        seen.add(prefix.bucket)
        for (const seq of [0, 1, 1000]) {
          const key = clientKey(table, id, seq)
          expect(router.bucketOfKey(key.bytes), `key (${id}, ${seq})`).toBe(key.bucket)
          // The same key where it lies in a KV batch: between other bytes.
          const framed = Buffer.concat([Buffer.from([7, 7, 7]), key.bytes, Buffer.from([9])])
          expect(router.bucketOfKeyIn(framed, 3, 3 + key.bytes.length), `framed key (${id}, ${seq})`).toBe(
            key.bucket,
          )
          // Every row of one prefix lives in the prefix's bucket.
          expect(key.bucket).toBe(prefix.bucket)
        }
      }
      expect(seen.size).toBe(BUCKETS)
    })
  }

  it('the Iceberg bucket of a prefix is not the bucket of its compacted bytes (the case it decodes for)', () => {
    const table =
      cases['an Iceberg lake table whose bucket key is part of the primary key (Iceberg bucketing)']
    const encoders = keyEncoderFor(table, table.rowType, table.bucketKeys)
    let differ = 0
    for (let id = 0; id < 100; id++) {
      const prefix = clientPrefix(table, id)
      if (encoders.bucketing(prefix.bytes, BUCKETS) !== prefix.bucket) differ++
    }
    expect(differ).toBeGreaterThan(0)
  })
})
