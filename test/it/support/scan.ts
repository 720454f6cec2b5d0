import type { LogScanner, ScanRecord, Table } from '@sluice/client'

/** Records of one bucket in the order the scanner returned them. */
export type BucketRecords = Map<number, ScanRecord[]>

/**
 * Subscribes a scanner to every bucket from the earliest offset and polls until `expectedTotal`
 * records arrived (or `timeoutMs` passed: then it returns what it has, for the caller to report),
 * then polls once more briefly to catch anything beyond the expected count.
 */
export async function scanAll(
  table: Table,
  expectedTotal: number,
  options: { readonly columns?: readonly string[]; readonly timeoutMs?: number } = {},
): Promise<BucketRecords> {
  const scan = options.columns === undefined ? table.newScan() : table.newScan().project(options.columns)
  const scanner = scan.createLogScanner()
  try {
    const numBuckets = table.getTableInfo().numBuckets
    for (let b = 0; b < numBuckets; b++) scanner.subscribeFromBeginning(b)
    return await pollUntil(scanner, expectedTotal, options.timeoutMs ?? 60_000)
  } finally {
    scanner.close()
  }
}

export async function pollUntil(
  scanner: LogScanner,
  expectedTotal: number,
  timeoutMs: number,
): Promise<BucketRecords> {
  const byBucket: BucketRecords = new Map()
  let total = 0
  const deadline = Date.now() + timeoutMs
  const take = async (waitMs: number) => {
    const records = await scanner.poll(waitMs)
    for (const bucket of records.buckets()) {
      const list = byBucket.get(bucket.bucket) ?? []
      for (const r of records.records(bucket)) list.push(r)
      byBucket.set(bucket.bucket, list)
    }
    total += records.count
  }
  while (total < expectedTotal && Date.now() < deadline) await take(Math.min(1000, deadline - Date.now()))
  await take(300)
  return byBucket
}

/** Total records over all buckets. */
export function countOf(records: BucketRecords): number {
  let n = 0
  for (const list of records.values()) n += list.length
  return n
}

/** Buckets whose offsets are not exactly 0, 1, 2, ... in order (described), or []. */
export function offsetGaps(records: BucketRecords, startOffsets?: ReadonlyMap<number, number>): string[] {
  const problems: string[] = []
  for (const [bucket, list] of records) {
    const start = startOffsets?.get(bucket) ?? 0
    for (let k = 0; k < list.length; k++) {
      if (list[k].offset !== start + k) {
        problems.push(`bucket ${bucket}: record ${k} has offset ${list[k].offset}, expected ${start + k}`)
        break
      }
    }
  }
  return problems
}
