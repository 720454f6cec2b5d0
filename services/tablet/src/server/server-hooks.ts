import type { Replica } from '../replica/replica.js'
import type { ReplicaHooks } from '../replica/replica-hooks.js'
import type { RemoteLogWiring } from './remote-log-wiring.js'

/**
 * The tablet server's own leadership hooks: the remote log (a new leader's manifest is loaded
 * before its replica opens the KvTablet, which may need remote segments to recover), then `extra`
 * (tests, plug-ins); stepping down and stopping in the same order, after the KvTablet closed.
 */
export function serverReplicaHooks(
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
      await extra?.onBecomeLeader?.(replica)
    },
    async onBecomeFollower(replica: Replica) {
      await remote?.onBecomeFollower(replica)
      await extra?.onBecomeFollower?.(replica)
    },
    onHighWatermarkAdvanced(replica: Replica, highWatermark: number) {
      extra?.onHighWatermarkAdvanced?.(replica, highWatermark)
    },
    async onReplicaStopped(replica: Replica, deleteLocal: boolean, deleteRemote: boolean) {
      await remote?.onReplicaStopped(replica, deleteLocal, deleteRemote)
      await extra?.onReplicaStopped?.(replica, deleteLocal, deleteRemote)
    },
  }
}
