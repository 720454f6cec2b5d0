import { describe, expect, it } from 'vitest'
import { fairShares } from './fair-shares.js'

describe('fairShares', () => {
  it('splits the limit evenly over buckets with enough records', () => {
    expect(fairShares([10_000, 10_000, 10_000, 10_000], 10)).toEqual([3, 3, 2, 2])
    expect(fairShares([5_000, 5_000], 10_000)).toEqual([5_000, 5_000])
  })

  it('gives what a small bucket leaves to the others, and never more than a bucket has', () => {
    expect(fairShares([1, 100, 0, 100], 10)).toEqual([1, 5, 0, 4])
    expect(fairShares([2, 3, 4], 100)).toEqual([2, 3, 4])
    expect(fairShares([0, 0], 10)).toEqual([0, 0])
    expect(fairShares([7], 0)).toEqual([0])
  })

  it('always uses the whole limit when enough records are unread', () => {
    for (let trial = 0; trial < 200; trial++) {
      const unread = Array.from({ length: 1 + (trial % 7) }, (_, i) => (trial * 31 + i * 17) % 50)
      const limit = (trial * 13) % 120
      const shares = fairShares(unread, limit)
      const total = unread.reduce((a, b) => a + b, 0)
      expect(shares.reduce((a, b) => a + b, 0)).toBe(Math.min(limit, total))
      // Fair: never more than a bucket has, and a bucket below the largest share got all it had.
      const top = Math.max(...shares)
      for (let i = 0; i < shares.length; i++) {
        expect(shares[i]).toBeLessThanOrEqual(unread[i])
        expect(shares[i] >= top - 1 || shares[i] === unread[i]).toBe(true)
      }
    }
  })
})
