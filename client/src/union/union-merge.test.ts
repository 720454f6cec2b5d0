import { ChangeType } from '@sluice/core/record'
import { describe, expect, it } from 'vitest'
import { type LogChange, PrimaryKeyMerge, type UnionRecord } from './union-merge.js'

const lake = (id: number, v: string): UnionRecord => ({
  row: [BigInt(id), v],
  bucket: 0,
  offset: id,
  timestamp: 1,
  source: 'lake',
})
const change = (changeType: ChangeType, id: number, v: string, offset: number): LogChange => ({
  row: [BigInt(id), v],
  bucket: 0,
  offset,
  timestamp: 2,
  source: 'log',
  changeType,
})

describe('PrimaryKeyMerge', () => {
  it('lets the newest log change win per key and removes deleted keys from the lake side', () => {
    const m = new PrimaryKeyMerge([0], 10)
    const { INSERT: I, UPDATE_BEFORE: UB, UPDATE_AFTER: UA, DELETE: D } = ChangeType
    m.addChanges([
      change(UB, 1, 'a', 10),
      change(UA, 1, 'a2', 11),
      change(D, 2, 'b', 12),
      change(I, 5, 'e', 13),
    ])
    m.addChanges([change(D, 5, 'e', 14), change(I, 6, 'f', 15)])
    expect(m.filterLake([lake(1, 'a'), lake(2, 'b'), lake(3, 'c')]).map(r => r.row)).toEqual([[3n, 'c']])
    expect([...m.logImages()].map(r => [r.row, r.offset, r.source])).toEqual([
      [[1n, 'a2'], 11, 'log'],
      [[6n, 'f'], 15, 'log'],
    ])
  })

  it('refuses more pending keys than the bound with INVALID_REQUEST', () => {
    const m = new PrimaryKeyMerge([0], 2)
    m.addChanges([change(ChangeType.INSERT, 1, 'a', 0), change(ChangeType.INSERT, 1, 'b', 1)])
    m.addChanges([change(ChangeType.INSERT, 2, 'a', 2)])
    expect(() => m.addChanges([change(ChangeType.INSERT, 3, 'a', 3)])).toThrow(
      expect.objectContaining({ errorName: 'INVALID_REQUEST' }),
    )
  })
})
