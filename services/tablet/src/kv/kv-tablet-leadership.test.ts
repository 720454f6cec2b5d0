import type { FlussError } from '@sluice/core/errors'
import { Schema } from '@sluice/core/metadata'
import { DataTypes } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import { readChangelog, TestingKvBatches, TestingKvBucket } from '../testing/kv.js'
import { fixedSchemaSource } from './table-schemas.js'

const schema = Schema.newBuilder()
  .column('id', DataTypes.INT())
  .column('v', DataTypes.BIGINT())
  .primaryKey('id')
  .build()
const schemas = fixedSchemaSource(1, schema)
const kv = new TestingKvBatches(schema)

let bucket: TestingKvBucket

afterEach(async () => {
  await bucket?.close()
})

async function errorOf(promise: Promise<unknown>): Promise<FlussError | null> {
  return promise.then(
    () => null,
    (e: unknown) => e as FlussError,
  )
}

describe('puts of a KvTablet whose replica stopped leading', () => {
  it('puts queued before the leadership ended fail with NOT_LEADER_OR_FOLLOWER and append nothing', async () => {
    const leadership = { leader: true }
    bucket = await TestingKvBucket.open(schema, {}, { isLeader: () => leadership.leader })
    await bucket.kv.putAsLeader(kv.batch([[1, 1n]]))
    const queued = [bucket.kv.putAsLeader(kv.batch([[2, 2n]])), bucket.kv.putAsLeader(kv.batch([[1, 3n]]))]
    leadership.leader = false
    const errors = await Promise.all(queued.map(errorOf))
    expect(errors.map(e => e?.errorName)).toEqual(['NOT_LEADER_OR_FOLLOWER', 'NOT_LEADER_OR_FOLLOWER'])
    expect([bucket.log.logEndOffset, bucket.kv.pendingWrites]).toEqual([1, 1])
    expect(await readChangelog(bucket.log, schemas)).toEqual([[0, '+I', [1, 1n]]])
  })

  it('a put queued behind writes that a follower truncation removed fails cleanly, not on the buffer order', async () => {
    const leadership = { leader: true }
    bucket = await TestingKvBucket.open(schema, {}, { isLeader: () => leadership.leader })
    for (let i = 0; i < 5; i++) await bucket.kv.putAsLeader(kv.batch([[i, BigInt(i)]]))
    // The replica becomes a follower and its fetcher truncates the unacknowledged writes away.
    leadership.leader = false
    await bucket.log.truncateTo(2)
    const error = await errorOf(bucket.kv.putAsLeader(kv.batch([[9, 9n]])))
    expect(error?.errorName).toBe('NOT_LEADER_OR_FOLLOWER')
    expect(bucket.log.logEndOffset).toBe(2)
  })
})
