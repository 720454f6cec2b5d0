import { describe, expect, it } from 'vitest'
import { type KeyChange, KvHistory } from './kv-history.js'

const BUCKET = 0

/** A history of one key (id 1): `+seq` upserts, `-` deletes; `*` acknowledged, `!` failed. */
function historyOf(writes: string, ackedBelow: (index: number) => number = () => 1_000): KvHistory {
  const history = new KvHistory()
  writes.split(' ').forEach((w, seq) => {
    const index = history.send(1, seq, w.startsWith('+') ? 'upsert' : 'delete')
    if (w.endsWith('*')) history.ack(1, index, { bucket: BUCKET, logEndOffset: ackedBelow(index) })
    if (w.endsWith('!')) history.fail(1, index)
  })
  return history
}

/** Changelog records at offsets from 0: `+I0 -U0 +U2 -D2` (change type and seq). */
function changelogOf(records: string, bucket = BUCKET): KeyChange[] {
  if (records === '') return []
  return records.split(' ').map((r, offset) => ({
    bucket,
    offset,
    change: r.slice(0, 2),
    seq: Number(r.slice(2)),
  }))
}

describe('KvHistory.checkKey', () => {
  it('accepts a failed write missing between acknowledged ones (no retries: the next batches go on)', () => {
    const history = historyOf('+0* +1! +2*')
    expect(history.checkKey(1, 2, changelogOf('+I0 -U0 +U2'))).toEqual([])
  })

  it('accepts a delete that found the key absent because the upsert before it was not applied', () => {
    // The delete was sent for a key the writer had upserted, but that upsert failed: nothing to delete.
    const history = historyOf('+0! - +2*')
    expect(history.checkKey(1, 2, changelogOf('+I2'))).toEqual([])
  })

  it('accepts unanswered writes applied or not, and takes the state from the lookup', () => {
    const history = historyOf('+0* +1 +2')
    expect(history.checkKey(1, 0, changelogOf('+I0'))).toEqual([])
    expect(history.checkKey(1, 2, changelogOf('+I0 -U0 +U2'))).toEqual([])
    expect(history.checkKey(1, 2, changelogOf('+I0 -U0 +U1 -U1 +U2'))).toEqual([])
  })

  it('refuses a changelog missing an acknowledged write', () => {
    const problems = historyOf('+0* +1* +2').checkKey(1, 2, changelogOf('+I0 -U0 +U2'))
    expect(problems).toEqual([
      'key 1: its changelog +I0@0 -U0@1 +U2@2 is not what any subsequence of its writes holding every ' +
        'acknowledged one produces (at most its first 1 records are; writes +0* +1* +2)',
    ])
  })

  it('refuses writes applied out of order, or twice', () => {
    const reordered = historyOf('+0* +1 +2*').checkKey(1, 1, changelogOf('+I0 -U0 +U2 -U2 +U1'))
    expect(reordered).toHaveLength(1)
    expect(reordered[0]).toContain('at most its first 3 records are')
    const twice = historyOf('+0* +1*').checkKey(1, 1, changelogOf('+I0 -U0 +U1 -U1 +U1'))
    expect(twice).toHaveLength(1)
    expect(twice[0]).toContain('at most its first 3 records are')
  })

  it('refuses records of an acknowledged write at or above the log end offset it was acknowledged with', () => {
    const history = historyOf('+0* +1*', index => (index === 0 ? 1 : 2))
    expect(history.checkKey(1, 1, changelogOf('+I0 -U0 +U1'))).toHaveLength(1)
    const inTime = historyOf('+0* +1*', index => (index === 0 ? 1 : 3))
    expect(inTime.checkKey(1, 1, changelogOf('+I0 -U0 +U1'))).toEqual([])
  })

  it('refuses a lookup that no explanation of the changelog leaves', () => {
    const history = historyOf('+0* +1 -')
    expect(history.checkKey(1, 1, changelogOf('+I0 -U0 +U1 -D1'))).toEqual([
      'key 1: looked up 1, but the changelog implies nothing (writes +0* +1 -)',
    ])
    expect(history.checkKey(1, null, changelogOf('+I0 -U0 +U1 -D1'))).toEqual([])
  })

  it('refuses a changelog spread over buckets', () => {
    const changes = [
      ...changelogOf('+I0'),
      ...changelogOf('-U0 +U1', 2).map(c => ({ ...c, offset: c.offset + 1 })),
    ]
    expect(historyOf('+0* +1*').checkKey(1, 1, changes)).toEqual(['key 1: changelog in several buckets'])
  })
})
