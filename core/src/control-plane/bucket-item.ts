import { FlussError } from '../errors/index.js'
import {
  type BucketRef,
  type ItemValue,
  isMetaStoreConflict,
  parseBucketSk,
  parseTableId,
  type VersionedItem,
  type WriteCondition,
} from '../metastore/index.js'
import { corruptItem, ITEM_FORMAT, ItemReader } from './item-reader.js'

/**
 *   TABLE#<id> / BUCKET#<partition>#<bucket>
 *     { format, leader (server id or null), leaderEpoch, isr, replicas, bucketEpoch, coordinatorEpoch }
 *
 * Fluss's LeaderAndIsr plus the bucket's replica assignment. `replicas[0]` is the preferred leader.
 * A leader change bumps leaderEpoch and bucketEpoch; an ISR-only change bumps bucketEpoch.
 * `coordinatorEpoch` is the epoch of the coordinator that last wrote the item: coordinator writes
 * are conditioned on it not being newer than their own, which fences deposed coordinators.
 */
export interface LeaderAndIsr {
  /** The leader's server id; null while no replica can lead (clients see LEADER_NOT_AVAILABLE). */
  readonly leader: number | null
  readonly leaderEpoch: number
  readonly isr: readonly number[]
  readonly replicas: readonly number[]
  readonly bucketEpoch: number
  readonly coordinatorEpoch: number
}

export interface BucketRecord {
  readonly ref: Required<BucketRef> & { readonly partitionId: number | null }
  readonly leaderAndIsr: LeaderAndIsr
  readonly version: number
}

export const INITIAL_LEADER_EPOCH = 0
export const INITIAL_BUCKET_EPOCH = 0

/** A new bucket: the first replica leads, every replica is in sync. */
export function initialLeaderAndIsr(replicas: readonly number[], coordinatorEpoch: number): LeaderAndIsr {
  checkReplicas(replicas)
  return {
    leader: replicas[0],
    leaderEpoch: INITIAL_LEADER_EPOCH,
    isr: [...replicas],
    replicas: [...replicas],
    bucketEpoch: INITIAL_BUCKET_EPOCH,
    coordinatorEpoch,
  }
}

/** A leader change (or loss, with `leader` null): both epochs move on. */
export function withNewLeader(
  current: LeaderAndIsr,
  leader: number | null,
  isr: readonly number[],
  coordinatorEpoch: number,
): LeaderAndIsr {
  return {
    ...current,
    leader,
    leaderEpoch: current.leaderEpoch + 1,
    isr: [...isr],
    bucketEpoch: current.bucketEpoch + 1,
    coordinatorEpoch,
  }
}

/** An ISR-only change: the leader epoch stays, the bucket epoch moves on. */
export function withNewIsr(
  current: LeaderAndIsr,
  isr: readonly number[],
  coordinatorEpoch = current.coordinatorEpoch,
): LeaderAndIsr {
  return { ...current, isr: [...isr], bucketEpoch: current.bucketEpoch + 1, coordinatorEpoch }
}

function checkReplicas(replicas: readonly number[]): void {
  if (replicas.length === 0 || new Set(replicas).size !== replicas.length) {
    throw new FlussError(
      'INVALID_REQUEST',
      `replicas must be distinct and non-empty, got [${replicas.join(', ')}]`,
    )
  }
}

export function bucketItemValue(l: LeaderAndIsr): ItemValue {
  return {
    format: ITEM_FORMAT,
    leader: l.leader,
    leaderEpoch: l.leaderEpoch,
    isr: [...l.isr],
    replicas: [...l.replicas],
    bucketEpoch: l.bucketEpoch,
    coordinatorEpoch: l.coordinatorEpoch,
  }
}

export function decodeBucket(item: VersionedItem): BucketRecord {
  const r = new ItemReader(item)
  const l: LeaderAndIsr = {
    leader: r.intOrNull('leader'),
    leaderEpoch: r.int('leaderEpoch'),
    isr: r.intArray('isr'),
    replicas: r.intArray('replicas'),
    bucketEpoch: r.int('bucketEpoch'),
    coordinatorEpoch: r.int('coordinatorEpoch'),
  }
  if (l.replicas.length === 0 || new Set(l.replicas).size !== l.replicas.length) {
    throw corruptItem(item, `replicas [${l.replicas.join(', ')}] must be distinct and non-empty`)
  }
  if (!l.isr.every(id => l.replicas.includes(id))) {
    throw corruptItem(
      item,
      `isr [${l.isr.join(', ')}] is not a subset of replicas [${l.replicas.join(', ')}]`,
    )
  }
  if (l.leader !== null && !l.replicas.includes(l.leader)) {
    throw corruptItem(item, `leader ${l.leader} is not a replica [${l.replicas.join(', ')}]`)
  }
  const { partitionId, bucket } = parseBucketSk(item.sk)
  return {
    ref: { tableId: parseTableId(item.pk), partitionId, bucket },
    leaderAndIsr: l,
    version: item.version,
  }
}

/** The condition of a coordinator's write to a bucket item it read at `version`. */
export function coordinatorBucketCondition(version: number, coordinatorEpoch: number): WriteCondition {
  return { version, attributes: [{ field: 'coordinatorEpoch', op: '<=', value: coordinatorEpoch }] }
}

/** The condition of a bucket leader's own write (ISR changes): still the leader, same epoch. */
export function leaderBucketCondition(version: number, leader: number, leaderEpoch: number): WriteCondition {
  return {
    version,
    attributes: [
      { field: 'leader', op: '=', value: leader },
      { field: 'leaderEpoch', op: '=', value: leaderEpoch },
    ],
  }
}

/** True when `e` is a lost bucket write because a coordinator with a newer epoch wrote the item. */
export function isFencedByNewerCoordinator(e: unknown, coordinatorEpoch: number): boolean {
  if (!isMetaStoreConflict(e) || e.current === undefined) return false
  const stored = e.current.value.coordinatorEpoch
  return typeof stored === 'number' && stored > coordinatorEpoch
}
