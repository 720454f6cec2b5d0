import { describe, expect, it } from 'vitest'
import { Prng } from '../it/support/prng.js'
import { expectedLog, type ModelOp, randomBatches, sentBatches } from './kv-model.js'

const up = (id: number, ver: number | null, v: string): ModelOp => ({ op: 'upsert', id, ver, v })
const del = (id: number): ModelOp => ({ op: 'delete', id, ver: null, v: '' })

describe('sentBatches', () => {
  it('keeps the batches when each went in one PutKv', () => {
    const batches = [[up(1, 1, 'a'), del(5)], [del(6)], [up(2, 1, 'b')]]
    expect(sentBatches(batches, [1, 1, 2, 3])).toEqual(batches)
    expect(expectedLog('default-wal', batches).batchEnds).toEqual([1, 2, 3])
  })

  it('splits a batch whose first ops were sent before the rest (acknowledged at another log end offset)', () => {
    const batches = [[up(1, 1, 'a'), del(5)], [del(6)], [up(2, 1, 'b')]]
    const sent = sentBatches(batches, [1, 2, 3, 4])
    expect(sent).toEqual([[up(1, 1, 'a')], [del(5)], [del(6)], [up(2, 1, 'b')]])
    // The delete of the absent key 5 now is a PutKv of its own without changes: one more offset.
    const expected = expectedLog('default-wal', sent)
    expect(expected.batchEnds).toEqual([1, 2, 3, 4])
    expect(expected.emptyBatches).toEqual([1, 2])
    expect(expected.records.at(-1)?.offset).toBe(3)
  })

  it('explains the changelog of seed 953132 (ARROW, default-wal) read with offsets shifted by one', () => {
    const batches = randomBatches(new Prng(953132), 24)
    const asModelled = expectedLog('default-wal', batches)
    // The Java client sent the upsert of the first batch before its delete of an absent key.
    const split = [[batches[0][0]], [batches[0][1]], ...batches.slice(1)]
    const read = expectedLog('default-wal', split)
    expect(read.records.map(r => r.offset)).not.toEqual(asModelled.records.map(r => r.offset))
    const acknowledged = split.flatMap((batch, i) => batch.map(() => read.batchEnds[i]))
    expect(expectedLog('default-wal', sentBatches(batches, acknowledged))).toEqual(read)
  })

  it('refuses offsets that are not one per op, or do not rise from one PutKv to the next', () => {
    const batches = [[up(1, 1, 'a'), del(5)], [up(2, 1, 'b')]]
    expect(() => sentBatches(batches, [1, 1])).toThrow('2 log end offsets for 3 ops')
    expect(() => sentBatches(batches, [2, 1, 3])).toThrow('op 1 acknowledged at log end offset 1, after 2')
    // A flush ends a PutKv: the next batch cannot share its log end offset.
    expect(() => sentBatches(batches, [1, 1, 1])).toThrow('op 2 acknowledged at log end offset 1, after 1')
    expect(() => sentBatches(batches, [-1, -1, 2])).toThrow('op 0 acknowledged at log end offset -1')
  })
})
