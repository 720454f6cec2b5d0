import { FlussError } from '@sluice/core/errors'
import { describe, expect, it } from 'vitest'
import { assignReplicas, type PlacementServer } from './assignment.js'

const servers = (n: number, racks?: string[]): PlacementServer[] =>
  Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    rack: racks === undefined ? null : racks[i % racks.length],
  }))

function count(values: number[]): Map<number, number> {
  const m = new Map<number, number>()
  for (const v of values) m.set(v, (m.get(v) ?? 0) + 1)
  return m
}

describe('assignReplicas', () => {
  it('gives every bucket RF distinct servers and spreads leaders and replicas evenly', () => {
    const a = assignReplicas(12, 3, servers(4), { startIndex: 1, replicaShift: 0 })
    expect(a).toHaveLength(12)
    for (const replicas of a) expect(new Set(replicas).size).toBe(3)
    expect([...count(a.map(r => r[0])).values()]).toEqual([3, 3, 3, 3])
    expect([...count(a.flat()).values()]).toEqual([9, 9, 9, 9])
    expect(a[0][0]).toBe(2) // startIndex 1 over servers ordered by id
  })

  it('is deterministic for fixed options and random otherwise', () => {
    const fixed = { startIndex: 0, replicaShift: 1 }
    expect(assignReplicas(5, 2, servers(3), fixed)).toEqual(assignReplicas(5, 2, servers(3), fixed))
    expect(assignReplicas(3, 1, servers(3), { random: () => 0.99 }).map(r => r[0])).toEqual([3, 1, 2])
  })

  it('puts the replicas of one bucket on distinct racks', () => {
    const racked = servers(6, ['az-a', 'az-b', 'az-c'])
    const rackOf = (id: number) => racked.find(s => s.id === id)?.rack
    for (const replicas of assignReplicas(30, 3, racked)) {
      expect(new Set(replicas.map(rackOf)).size).toBe(3)
    }
    // More replicas than racks: racks repeat only once all are used.
    for (const replicas of assignReplicas(10, 4, racked)) {
      expect(new Set(replicas.map(rackOf)).size).toBe(3)
      expect(new Set(replicas).size).toBe(4)
    }
  })

  it('refuses a replication factor above the live servers (INVALID_REPLICATION_FACTOR)', () => {
    const e = (() => {
      try {
        assignReplicas(1, 4, servers(3))
      } catch (err) {
        return err as FlussError
      }
    })()
    expect(e?.errorName).toBe('INVALID_REPLICATION_FACTOR')
    expect(e?.message).toBe('Replication factor: 4 larger than available tablet servers: 3.')
    expect(() => assignReplicas(1, 1, [])).toThrow(FlussError)
    expect(() => assignReplicas(1, 0, servers(1))).toThrow(/larger than 0/)
  })

  it('refuses racks on some servers only', () => {
    const mixed = [
      { id: 1, rack: 'a' },
      { id: 2, rack: null },
    ]
    expect(() => assignReplicas(1, 1, mixed)).toThrow(/rack information/)
  })
})
