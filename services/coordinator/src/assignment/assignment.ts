import { assert, FlussError } from '@sluice/core/errors'

/** A live tablet server as placement sees it. */
export interface PlacementServer {
  readonly id: number
  readonly rack: string | null
}

export interface AssignmentOptions {
  /** Position (in the server order) of bucket 0's first replica; default random. */
  readonly startIndex?: number
  /** Offset of the followers from their bucket's first replica; default random. */
  readonly replicaShift?: number
  /** A random source in [0, 1) for the defaults; default Math.random. */
  readonly random?: () => number
}

/**
 * Replica placement for new buckets (the rules of Fluss's TableAssignmentUtils):
 * - every bucket gets `replicationFactor` distinct servers; the first one is its preferred leader;
 * - first replicas walk the servers round-robin from a random start, so leaders spread evenly;
 * - followers sit at a per-round shift from the first replica, so replica sets vary;
 * - when servers carry racks, servers are ordered alternating racks and a bucket's replicas take
 *   distinct racks while some rack is still unused (all servers must then have a rack);
 * - RF > live servers fails with INVALID_REPLICATION_FACTOR.
 * Returns the replicas of bucket 0..bucketCount-1.
 */
export function assignReplicas(
  bucketCount: number,
  replicationFactor: number,
  servers: readonly PlacementServer[],
  options: AssignmentOptions = {},
): number[][] {
  assert(
    Number.isSafeInteger(bucketCount) && bucketCount > 0,
    `bucket count must be positive, got ${bucketCount}`,
  )
  if (replicationFactor <= 0)
    throw new FlussError('INVALID_REPLICATION_FACTOR', 'Replication factor must be larger than 0.')
  if (replicationFactor > servers.length) {
    throw new FlussError(
      'INVALID_REPLICATION_FACTOR',
      `Replication factor: ${replicationFactor} larger than available tablet servers: ${servers.length}.`,
    )
  }
  const withRack = servers.filter(s => s.rack !== null).length
  if (withRack > 0 && withRack < servers.length) {
    throw new FlussError(
      'INVALID_SERVER_RACK_INFO_EXCEPTION',
      'Not all tabletServers have rack information for replica rack aware assignment.',
    )
  }
  const ordered = withRack > 0 ? rackAlternated(servers) : [...servers].sort((a, b) => a.id - b.id)
  const random = options.random ?? Math.random
  const n = ordered.length
  const start = options.startIndex ?? Math.floor(random() * n)
  const shift = options.replicaShift ?? Math.floor(random() * n)
  return Array.from({ length: bucketCount }, (_, bucket) => {
    const first = (start + bucket) % n
    // Each full round over the servers moves the followers one step further.
    const roundShift = shift + Math.floor(bucket / n)
    return placeBucket(ordered, first, roundShift, replicationFactor)
  })
}

/** Replicas of one bucket: the first at `first`, followers walking from `first + 1 + shift`. */
function placeBucket(
  ordered: readonly PlacementServer[],
  first: number,
  shift: number,
  rf: number,
): number[] {
  const n = ordered.length
  const chosen = [ordered[first]]
  const racks = new Set(ordered.map(s => s.rack))
  // Candidates: every other server once, starting at the shifted offset.
  const candidates = Array.from(
    { length: n - 1 },
    (_, k) => ordered[(first + 1 + ((shift + k) % (n - 1))) % n],
  )
  while (chosen.length < rf) {
    const usedRacks = new Set(chosen.map(s => s.rack))
    const free = candidates.filter(c => !chosen.includes(c))
    const next = usedRacks.size < racks.size ? (free.find(c => !usedRacks.has(c.rack)) ?? free[0]) : free[0]
    assert(next !== undefined, 'enough servers for the replication factor')
    chosen.push(next)
  }
  return chosen.map(s => s.id)
}

/** Servers ordered rack by rack in turn (racks and servers by name and id): a, b, c, a, b, ... */
function rackAlternated(servers: readonly PlacementServer[]): PlacementServer[] {
  const byRack = new Map<string, PlacementServer[]>()
  for (const s of [...servers].sort((a, b) => a.id - b.id)) {
    const rack = s.rack as string
    byRack.set(rack, [...(byRack.get(rack) ?? []), s])
  }
  const queues = [...byRack.keys()].sort().map(r => byRack.get(r) as PlacementServer[])
  const out: PlacementServer[] = []
  for (let round = 0; out.length < servers.length; round++) {
    for (const q of queues) if (round < q.length) out.push(q[round])
  }
  return out
}
