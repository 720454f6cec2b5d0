import { describe, expect, it } from 'vitest'
import { decodeCursor, encodeCursor } from './cursor.js'

describe('scan cursors', () => {
  it('round-trip per-bucket positions of one table', () => {
    const positions = [
      { bucket: 0, offset: 5 },
      { partitionId: 7, bucket: 2, offset: 9_007_199_254_740_991 },
    ]
    const cursor = encodeCursor(42, positions)
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/)
    expect(decodeCursor(cursor, 42)).toEqual(positions)
  })

  it('refuse cursors of other tables and malformed ones', () => {
    expect(() => decodeCursor(encodeCursor(1, []), 2)).toThrow(/another table/)
    const forge = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')
    expect(() => decodeCursor(forge({ v: 2, t: 1, p: [] }), 1)).toThrow(/not a cursor/)
    expect(() => decodeCursor(forge({ v: 1, t: 1, p: [[null, -1, 0]] }), 1)).toThrow(/malformed/)
    expect(() => decodeCursor(forge({ v: 1, t: 1, p: [[null, 0, 1.5]] }), 1)).toThrow(/malformed/)
    expect(() => decodeCursor('!!', 1)).toThrow(/not a cursor/)
    expect(() => decodeCursor(Buffer.from('{"v":').toString('base64url'), 1)).toThrow(/not a cursor/)
  })
})
