import { TABLE_LOG_TTL } from '@sluice/core/config'
import type { TableBucket } from '@sluice/core/metadata'
import type { Clock } from '@sluice/core/util'
import type { Replica } from '../replica/replica.js'

/** What local retention reads of a hosted replica. */
export type RetainedReplica = Pick<Replica, 'tableBucket' | 'tableInfo' | 'logTablet' | 'name'>

export interface LocalRetentionOptions {
  /** Every replica hosted here, leaders and followers alike. */
  readonly replicas: () => readonly RetainedReplica[]
  /** Whether the remote-log manager runs a task for the bucket (it then deletes local segments). */
  readonly managedRemotely: (bucket: TableBucket) => boolean
  /** `log.retention.check-interval`: the fixed delay between two checks. */
  readonly checkIntervalMs: number
  readonly clock: Clock
  readonly warn: (message: string, error?: unknown) => void
}

export interface LocalRetentionResult {
  /** Replicas whose log was checked against their table's TTL. */
  readonly checkedReplicas: number
  readonly deletedSegments: number
}

/**
 * Retention by `table.log.ttl` for logs no remote-log task looks after (remote storage disabled,
 * or a bucket without a task): every check-interval, each hosted log replica, leader or follower,
 * deletes its oldest sealed segments whose newest batch is older than the TTL. The LogTablet never
 * deletes the active segment nor a segment reaching above the high watermark. Primary-key buckets
 * are left alone: without KV snapshots and a remote log, their changelog is what a new leader's
 * KvTablet is rebuilt from.
 */
export class LocalRetention {
  readonly #options: LocalRetentionOptions
  #timer: NodeJS.Timeout | null = null
  #running: Promise<LocalRetentionResult> | null = null
  #closed = false

  constructor(options: LocalRetentionOptions) {
    this.#options = options
  }

  /** Schedules the periodic check (first after one interval). */
  start(): void {
    if (this.#closed || this.#timer !== null) return
    this.#schedule()
  }

  /** One check over every hosted replica; a check already running is joined, not repeated. */
  runOnce(): Promise<LocalRetentionResult> {
    this.#running ??= this.#run().finally(() => {
      this.#running = null
    })
    return this.#running
  }

  /** Stops the periodic check and waits for a check in progress. */
  async close(): Promise<void> {
    this.#closed = true
    if (this.#timer !== null) clearTimeout(this.#timer)
    this.#timer = null
    await this.#running
  }

  #schedule(): void {
    this.#timer = setTimeout(() => {
      void this.runOnce().then(() => {
        if (!this.#closed) this.#schedule()
      })
    }, this.#options.checkIntervalMs)
    this.#timer.unref()
  }

  async #run(): Promise<LocalRetentionResult> {
    const { replicas, managedRemotely, clock, warn } = this.#options
    let checkedReplicas = 0
    let deletedSegments = 0
    for (const replica of replicas()) {
      if (this.#closed) break
      const { tableInfo, logTablet } = replica
      const ttlMs = tableInfo.tableConfig.get(TABLE_LOG_TTL)
      if (ttlMs <= 0 || tableInfo.hasPrimaryKey || logTablet.isClosed) continue
      if (managedRemotely(replica.tableBucket)) continue
      checkedReplicas++
      try {
        deletedSegments += await logTablet.deleteSegmentsOlderThan(ttlMs, clock.nowMs())
      } catch (e) {
        // A replica stopped meanwhile closed its log; anything else is worth a warning.
        if (!logTablet.isClosed) warn(`local retention of ${replica.name} failed`, e)
      }
    }
    return { checkedReplicas, deletedSegments }
  }
}
