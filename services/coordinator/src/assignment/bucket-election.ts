import { type LeaderAndIsr, withNewIsr, withNewLeader } from '@sluice/core/control-plane'

/**
 * Leader election for one bucket (Fluss's DefaultLeaderElection): the first replica, in assignment
 * order, that is live and in the ISR. Never a replica outside the ISR: one that is not in sync may
 * miss acknowledged writes.
 */
export function electLeader(l: LeaderAndIsr, live: ReadonlySet<number>): number | null {
  return l.replicas.find(id => live.has(id) && l.isr.includes(id)) ?? null
}

/**
 * A replica's server died. If it led the bucket, a new leader is elected from ISR ∩ live (none:
 * leader null, LEADER_NOT_AVAILABLE for clients); both epochs move on. The dead replica also leaves
 * the ISR, unless it is the last member (an empty ISR could never elect a leader again); a change of
 * the ISR alone moves only the bucket epoch. Undefined when the bucket is unaffected.
 */
export function afterReplicaLoss(
  l: LeaderAndIsr,
  dead: number,
  live: ReadonlySet<number>,
  coordinatorEpoch: number,
): LeaderAndIsr | undefined {
  const isr = l.isr.includes(dead) && l.isr.length > 1 ? l.isr.filter(id => id !== dead) : l.isr
  if (l.leader === dead) {
    const alive = new Set([...live].filter(id => id !== dead))
    return withNewLeader(l, electLeader(l, alive), isr, coordinatorEpoch)
  }
  return isr === l.isr ? undefined : withNewIsr(l, isr, coordinatorEpoch)
}

/**
 * A bucket without a live leader (none elected, or the leader is not live) gets one if an ISR member
 * is live now, e.g. when a server returns. Undefined when it has a live leader or still none can be
 * elected.
 */
export function afterServersReturn(
  l: LeaderAndIsr,
  live: ReadonlySet<number>,
  coordinatorEpoch: number,
): LeaderAndIsr | undefined {
  if (l.leader !== null && live.has(l.leader)) return undefined
  const leader = electLeader(l, live)
  if (leader === null) return undefined
  return withNewLeader(l, leader, l.isr, coordinatorEpoch)
}

/**
 * A server asked for a controlled shutdown (Fluss's ControlledShutdownLeaderElection plus the
 * OfflineReplica transition). Where it leads, the first live in-sync replica in assignment order
 * that is not shutting down takes over (both epochs move on); none: the bucket stays led by it for
 * now (it is reported back as remaining). It also leaves the ISR, unless it is the last member.
 * Undefined when the bucket is unaffected.
 */
export function afterControlledShutdown(
  l: LeaderAndIsr,
  shuttingDown: number,
  eligible: ReadonlySet<number>,
  coordinatorEpoch: number,
): LeaderAndIsr | undefined {
  const isr =
    l.isr.includes(shuttingDown) && l.isr.length > 1 ? l.isr.filter(id => id !== shuttingDown) : l.isr
  if (l.leader === shuttingDown) {
    const others = new Set([...eligible].filter(id => id !== shuttingDown))
    const leader = electLeader(l, others)
    return leader === null ? undefined : withNewLeader(l, leader, isr, coordinatorEpoch)
  }
  return isr === l.isr ? undefined : withNewIsr(l, isr, coordinatorEpoch)
}
