import type { Replica } from '../replica/replica.js'
import type { ReplicaHooks } from '../replica/replica-hooks.js'
import type { KvBuckets } from './kv-buckets.js'
import type { RemoteLogWiring } from './remote-log-wiring.js'

/**
 * The tablet server's own leadership hooks: the remote log first (a new leader's manifest is
 * loaded before its KvTablet may need remote segments to recover), then the KvTablet; stepping
 * down in the reverse order. `extra` (tests, plug-ins) runs after both.
 */
export function serverReplicaHooks(
  kv: KvBuckets,
  remote: RemoteLogWiring | null,
  extra: ReplicaHooks | undefined,
  onIsrUpdate?: ReplicaHooks['onIsrUpdate'],
): ReplicaHooks {
  return {
    onIsrUpdate(replica, outcome) {
      onIsrUpdate?.(replica, outcome)
      extra?.onIsrUpdate?.(replica, outcome)
    },
    async onBecomeLeader(replica: Replica) {
      await remote?.onBecomeLeader(replica)
      await kv.onBecomeLeader(replica)
      await extra?.onBecomeLeader?.(replica)
    },
    async onBecomeFollower(replica: Replica) {
      await kv.onBecomeFollower(replica)
      await remote?.onBecomeFollower(replica)
      await extra?.onBecomeFollower?.(replica)
    },
    gatesHighWatermark: (replica: Replica) =>
      replica.tableInfo.hasPrimaryKey ||
      (extra?.gatesHighWatermark?.(replica) ?? extra?.beforeHighWatermarkAdvance !== undefined),
    async beforeHighWatermarkAdvance(replica: Replica, candidate: number) {
      const allowed = await kv.beforeHighWatermarkAdvance(replica, candidate)
      const gate = extra?.beforeHighWatermarkAdvance
      return gate === undefined ? allowed : Math.min(allowed, await gate(replica, candidate))
    },
    onHighWatermarkAdvanced(replica: Replica, highWatermark: number) {
      extra?.onHighWatermarkAdvanced?.(replica, highWatermark)
    },
    async onReplicaStopped(replica: Replica, deleteLocal: boolean, deleteRemote: boolean) {
      await kv.onReplicaStopped(replica, deleteLocal, deleteRemote)
      await remote?.onReplicaStopped(replica, deleteLocal, deleteRemote)
      await extra?.onReplicaStopped?.(replica, deleteLocal, deleteRemote)
    },
  }
}
