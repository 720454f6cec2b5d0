/**
 * How many records each bucket of a scan contributes: `limit` shared out fairly over the buckets'
 * unread records (water-filling: every bucket gets an equal share, and what a bucket with fewer
 * unread records leaves goes to the others), so a scan without a cursor reads every bucket, not
 * the first one to answer.
 */
export function fairShares(unread: readonly number[], limit: number): number[] {
  const shares = unread.map(() => 0)
  let left = Math.max(0, limit)
  let open = unread.flatMap((n, i) => (n > 0 ? [i] : []))
  while (left > 0 && open.length > 0) {
    const each = Math.max(1, Math.floor(left / open.length))
    const next: number[] = []
    for (const i of open) {
      if (left === 0) break
      const take = Math.min(each, unread[i] - shares[i], left)
      shares[i] += take
      left -= take
      if (shares[i] < unread[i]) next.push(i)
    }
    open = next
  }
  return shares
}
