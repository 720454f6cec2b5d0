import { FlussError, toFlussError } from '@sluice/core/errors'
import type { TableBucket } from '@sluice/core/metadata'
import type { Replica } from './replica.js'
import type { ReplicaManager } from './replica-manager.js'
import type { BucketResult, NotifyLeaderAndIsrData, StopReplicaData } from './replica-types.js'

function failure(tableBucket: TableBucket, e: unknown): BucketResult {
  return { tableBucket, error: toFlussError(e) }
}

/**
 * NOTIFY_LEADER_AND_ISR (Fluss's `becomeLeaderOrFollower`): the coordinator epoch is checked for the
 * whole request; then each bucket's replica is created if needed, its leader epoch checked, and it
 * becomes leader or follower. Followers with a new leader epoch stop fetching and are handed to the
 * fetcher of the new leader, which first reconciles the log with the leader's (truncating where it
 * diverges, see `leader-epoch-sync.ts`) and then fetches. Results come in request order.
 */
export async function becomeLeaderOrFollower(
  manager: ReplicaManager,
  coordinatorEpoch: number,
  data: readonly NotifyLeaderAndIsrData[],
): Promise<BucketResult[]> {
  manager.validateAndApplyCoordinatorEpoch(coordinatorEpoch, 'notifyLeaderAndIsr')
  const results = new Map<NotifyLeaderAndIsrData, BucketResult>()
  const leaders: [NotifyLeaderAndIsrData, Replica][] = []
  const followers: [NotifyLeaderAndIsrData, Replica][] = []
  for (const d of data) {
    try {
      const replica = await manager.createReplica(d)
      replica.checkLeaderEpoch(d.leaderEpoch, 'notify leader and isr')
      if (!d.replicas.includes(manager.serverId)) {
        throw new FlussError(
          'UNKNOWN_TABLE_OR_BUCKET_EXCEPTION',
          `server ${manager.serverId} is not in the assigned replicas [${d.replicas}] of ${replica.name}`,
        )
      }
      if (d.leader === manager.serverId) leaders.push([d, replica])
      else followers.push([d, replica])
    } catch (e) {
      results.set(d, failure(d.tableBucket, e))
    }
  }
  await makeLeaders(manager, leaders, results)
  await makeFollowers(manager, followers, results)
  await manager.fetcherManager.shutdownIdleFetchers()
  return data.map(d => results.get(d) ?? { tableBucket: d.tableBucket })
}

async function makeLeaders(
  manager: ReplicaManager,
  leaders: readonly [NotifyLeaderAndIsrData, Replica][],
  results: Map<NotifyLeaderAndIsrData, BucketResult>,
): Promise<void> {
  manager.fetcherManager.removeFetcherForBuckets(leaders.map(([d]) => d.tableBucket))
  for (const [d, replica] of leaders) {
    try {
      // A fetched batch being appended finishes first: the new epoch starts after it.
      await replica.runFollowerTask(async () => undefined)
      replica.makeLeader(d)
    } catch (e) {
      results.set(d, failure(d.tableBucket, e))
    }
  }
}

async function makeFollowers(
  manager: ReplicaManager,
  followers: readonly [NotifyLeaderAndIsrData, Replica][],
  results: Map<NotifyLeaderAndIsrData, BucketResult>,
): Promise<void> {
  const changed: Replica[] = []
  for (const [d, replica] of followers) {
    try {
      const isNewEpoch = replica.makeFollower(d)
      // Same epoch: keep fetching as before, unless nothing fetches for it (it was stopped).
      if (isNewEpoch || manager.fetcherManager.leaderOf(d.tableBucket) !== d.leader) changed.push(replica)
    } catch (e) {
      results.set(d, failure(d.tableBucket, e))
    }
  }
  // Stop fetching first: the new fetcher reconciles the log before it fetches from the new position.
  manager.fetcherManager.removeFetcherForBuckets(changed.map(r => r.tableBucket))
  for (const replica of changed) manager.completeDelayedOperations(replica.tableBucket)
  const byLeader = new Map<number, TableBucket[]>()
  for (const replica of changed) {
    const d = followers.find(([, r]) => r === replica)?.[0]
    try {
      const leaderId = replica.leaderId
      // No leader yet: nothing to fetch from until the coordinator elects one and says so.
      if (leaderId === null) continue
      const list = byLeader.get(leaderId) ?? []
      list.push(replica.tableBucket)
      byLeader.set(leaderId, list)
    } catch (e) {
      if (d !== undefined) results.set(d, failure(replica.tableBucket, e))
    }
  }
  manager.fetcherManager.addFetcherForBuckets(byLeader)
}

/**
 * STOP_REPLICA: coordinator epoch checked for the whole request; a bucket not hosted here is done
 * already; a stale leader epoch is FENCED_LEADER_EPOCH_EXCEPTION for that bucket; otherwise the
 * replica stops fetching and serving (its KvTablet closes), and with `deleteLocal` its log and KV
 * directories are removed.
 */
export async function stopReplicas(
  manager: ReplicaManager,
  coordinatorEpoch: number,
  data: readonly StopReplicaData[],
): Promise<BucketResult[]> {
  manager.validateAndApplyCoordinatorEpoch(coordinatorEpoch, 'stopReplicas')
  const results: BucketResult[] = []
  for (const d of data) {
    // Deleting local and remote data means the table or partition was dropped: its buckets are
    // unknown from now on (UNKNOWN_TABLE_OR_BUCKET instead of NOT_LEADER_OR_FOLLOWER).
    const dropped = d.deleteLocal && d.deleteRemote
    const replica = manager.getReplica(d.tableBucket)
    if (replica === undefined) {
      if (dropped) manager.metadataCache.removeDropped(d.tableBucket)
      results.push({ tableBucket: d.tableBucket })
      continue
    }
    try {
      replica.checkLeaderEpoch(d.leaderEpoch, 'stop replica')
      manager.fetcherManager.removeFetcherForBuckets([d.tableBucket])
      replica.resign()
      await replica.whenHooksSettled()
      await replica.stopKv(d.deleteLocal, d.deleteRemote)
      await manager.hooks?.onReplicaStopped?.(replica, d.deleteLocal, d.deleteRemote)
      if (d.deleteLocal) await manager.removeReplica(replica, true)
      if (dropped) manager.metadataCache.removeDropped(d.tableBucket)
      results.push({ tableBucket: d.tableBucket })
    } catch (e) {
      results.push(failure(d.tableBucket, e))
    }
  }
  await manager.fetcherManager.shutdownIdleFetchers()
  return results
}
