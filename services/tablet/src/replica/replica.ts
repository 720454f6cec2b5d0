import { FlussError } from '@sluice/core/errors'
import type { PhysicalTablePath, TableBucket, TableInfo } from '@sluice/core/metadata'
import { tableBucketToString } from '@sluice/core/metadata'
import type { Clock, LogAppendInfo, LogReadResult, LogTablet } from '../log/index.js'
import {
  FETCH_FROM_EARLIEST_OFFSET,
  type ListOffsetsParam,
  type NotifyLeaderAndIsrData,
  OffsetType,
} from './replica-types.js'

/** What a leader knows about one follower: the log end offset it last fetched from. */
interface FollowerState {
  /** -1 until the follower's first fetch. */
  logEndOffset: number
  lastFetchTimeMs: number
}

export interface ReplicaOptions {
  readonly localServerId: number
  readonly tableBucket: TableBucket
  readonly physicalTablePath: PhysicalTablePath
  readonly tableInfo: TableInfo
  readonly logTablet: LogTablet
  /** `log.replica.min-in-sync-replicas-number`. */
  readonly minInSyncReplicas: number
  readonly clock: Clock
  /** The high watermark or the log end moved, or leadership changed: wake waiting requests. */
  readonly onChanged: (bucket: TableBucket) => void
}

export interface ReplicaReadParams {
  readonly fetchOffset: number
  readonly maxBytes: number
  readonly minOneMessage: boolean
  /** -1 for clients; a follower's server id reads up to the log end and reports its progress. */
  readonly replicaId: number
}

/**
 * One bucket replica hosted on this server (Fluss's `Replica`): its LogTablet plus the leadership
 * state the coordinator assigned. As leader it takes appends, tracks followers' log end offsets and
 * moves the high watermark to the smallest log end offset over the ISR; as follower it takes the
 * batches its fetcher brings. Leadership changes and epoch checks happen here; the async log work
 * is serialized by the LogTablet itself.
 */
export class Replica {
  readonly tableBucket: TableBucket
  readonly physicalTablePath: PhysicalTablePath
  readonly tableInfo: TableInfo
  readonly logTablet: LogTablet
  readonly #options: ReplicaOptions
  readonly #followers = new Map<number, FollowerState>()
  #leaderId: number | null = null
  #leaderEpoch = -1
  #bucketEpoch = -1
  #isr: readonly number[] = []

  constructor(options: ReplicaOptions) {
    this.#options = options
    this.tableBucket = options.tableBucket
    this.physicalTablePath = options.physicalTablePath
    this.tableInfo = options.tableInfo
    this.logTablet = options.logTablet
  }

  get leaderEpoch(): number {
    return this.#leaderEpoch
  }
  get bucketEpoch(): number {
    return this.#bucketEpoch
  }
  get leaderId(): number | null {
    return this.#leaderId
  }
  get isLeader(): boolean {
    return this.#leaderId === this.#options.localServerId
  }
  get isr(): readonly number[] {
    return this.#isr
  }
  get name(): string {
    return tableBucketToString(this.tableBucket)
  }
  get isUnderMinIsr(): boolean {
    return this.isLeader && this.#isr.length < this.#options.minInSyncReplicas
  }
  /** Records a client can read: high watermark minus log start (Fluss's `getRowCount` for logs). */
  get rowCount(): number {
    return this.logTablet.highWatermark - this.logTablet.logStartOffset
  }
  /** Followers' log end offsets as the leader last saw them (-1 = not fetched yet). */
  followerLogEndOffset(followerId: number): number | undefined {
    return this.#followers.get(followerId)?.logEndOffset
  }

  /**
   * Becomes (or stays) leader. A newer leader epoch resets the follower tracking; the same epoch
   * only refreshes the assignment and ISR; an older one is FENCED_LEADER_EPOCH_EXCEPTION.
   */
  makeLeader(data: NotifyLeaderAndIsrData): void {
    this.#checkEpochs(data)
    const isNewEpoch = data.leaderEpoch > this.#leaderEpoch
    const followers = data.replicas.filter(id => id !== this.#options.localServerId)
    for (const id of [...this.#followers.keys()]) {
      if (isNewEpoch || !followers.includes(id)) this.#followers.delete(id)
    }
    for (const id of followers) {
      if (!this.#followers.has(id)) this.#followers.set(id, { logEndOffset: -1, lastFetchTimeMs: 0 })
    }
    this.#isr = [...data.isr]
    this.#leaderId = this.#options.localServerId
    this.#leaderEpoch = data.leaderEpoch
    this.#bucketEpoch = data.bucketEpoch
    this.maybeIncrementLeaderHW()
    this.#options.onChanged(this.tableBucket)
  }

  /** Becomes (or stays) follower of `data.leader`; true when the leader epoch is new. */
  makeFollower(data: NotifyLeaderAndIsrData): boolean {
    this.#checkEpochs(data)
    const isNewEpoch = data.leaderEpoch > this.#leaderEpoch
    this.#followers.clear()
    this.#isr = []
    this.#leaderId = data.leader
    this.#leaderEpoch = data.leaderEpoch
    this.#bucketEpoch = data.bucketEpoch
    this.#options.onChanged(this.tableBucket)
    return isNewEpoch
  }

  /** Gives up leadership without a new leader (the replica is being stopped). */
  resign(): void {
    this.#leaderId = null
    this.#followers.clear()
    this.#isr = []
    this.#options.onChanged(this.tableBucket)
  }

  /** Refuses a request epoch older than the one held (used by STOP_REPLICA). */
  checkLeaderEpoch(requestLeaderEpoch: number, what: string): void {
    if (requestLeaderEpoch < this.#leaderEpoch) {
      throw new FlussError(
        'FENCED_LEADER_EPOCH_EXCEPTION',
        `invalid leader epoch ${requestLeaderEpoch} in ${what} request, the latest known leader epoch ` +
          `is ${this.#leaderEpoch} for ${this.name}`,
      )
    }
  }

  /** The leader's append: ISR check for acks=all, append, then maybe a new high watermark. */
  async appendRecordsToLeader(records: Uint8Array, requiredAcks: number): Promise<LogAppendInfo> {
    this.#requireLeader()
    if (requiredAcks === -1 && this.#isr.length < this.#options.minInSyncReplicas) {
      throw new FlussError(
        'NOT_ENOUGH_REPLICAS_EXCEPTION',
        `the ISR [${this.#isr}] of ${this.name} is smaller than the ${this.#options.minInSyncReplicas} ` +
          'replicas required for acks=-1',
      )
    }
    const info = await this.logTablet.appendAsLeader(records)
    if (this.isLeader) this.maybeIncrementLeaderHW()
    this.#options.onChanged(this.tableBucket)
    return info
  }

  /** The follower's append of batches fetched from the leader (offsets kept). */
  appendRecordsToFollower(records: Uint8Array): Promise<LogAppendInfo> {
    return this.logTablet.appendAsFollower(records)
  }

  /**
   * A fetch served by the leader. Clients read below the high watermark; followers read to the log
   * end, and their fetch offset is recorded as their log end offset, which may move the HW.
   */
  async readRecords(params: ReplicaReadParams): Promise<LogReadResult> {
    this.#requireLeader()
    const fromFollower = params.replicaId >= 0
    if (fromFollower && !this.#followers.has(params.replicaId)) {
      throw new FlussError(
        'NOT_LEADER_OR_FOLLOWER',
        `replica ${params.replicaId} is not recognized as a follower of ${this.name}`,
      )
    }
    const fetchOffset =
      params.fetchOffset === FETCH_FROM_EARLIEST_OFFSET ? this.logTablet.logStartOffset : params.fetchOffset
    const result = await this.logTablet.read({
      fetchOffset,
      maxBytes: params.maxBytes,
      minOneMessage: params.minOneMessage,
      isolation: fromFollower ? 'LOG_END' : 'HIGH_WATERMARK',
    })
    if (!fromFollower) return result
    this.#updateFollowerFetchState(params.replicaId, fetchOffset)
    return { ...result, highWatermark: this.logTablet.highWatermark }
  }

  /**
   * Sets the leader's high watermark to the smallest log end offset over the ISR, forward only, and
   * not while the ISR is below the minimum. True when it moved.
   */
  maybeIncrementLeaderHW(): boolean {
    if (!this.isLeader || this.isUnderMinIsr) return false
    let highWatermark = this.logTablet.logEndOffset
    for (const [id, state] of this.#followers) {
      if (this.#isr.includes(id) && state.logEndOffset < highWatermark) highWatermark = state.logEndOffset
    }
    if (highWatermark < 0) return false
    return this.logTablet.maybeIncrementHighWatermark(highWatermark)
  }

  /** A follower's high watermark: the leader's, but never above its own log end. */
  updateFollowerHighWatermark(leaderHighWatermark: number): void {
    const highWatermark = Math.min(leaderHighWatermark, this.logTablet.logEndOffset)
    if (highWatermark > this.logTablet.highWatermark) this.logTablet.updateHighWatermark(highWatermark)
  }

  /**
   * For a delayed acks=all write: done once the high watermark reached `requiredOffset`; an error
   * when this replica is no longer the leader.
   */
  checkEnoughReplicasReachOffset(requiredOffset: number): { done: boolean; error?: FlussError } {
    if (!this.isLeader) {
      return { done: true, error: new FlussError('NOT_LEADER_OR_FOLLOWER', `${this.name} lost leadership`) }
    }
    if (this.logTablet.highWatermark < requiredOffset) return { done: false }
    if (this.#isr.length < this.#options.minInSyncReplicas) {
      const message = `${this.name} was replicated to fewer in-sync replicas than required`
      return { done: true, error: new FlussError('NOT_ENOUGH_REPLICAS_AFTER_APPEND_EXCEPTION', message) }
    }
    return { done: true }
  }

  /** LIST_OFFSETS on the leader: earliest, latest (HW for clients) or by commit timestamp. */
  async getOffset(param: ListOffsetsParam): Promise<number> {
    this.#requireLeader()
    const fromClient = param.followerServerId < 0
    const latest = fromClient ? this.logTablet.highWatermark : this.logTablet.logEndOffset
    switch (param.offsetType) {
      case OffsetType.EARLIEST:
        return this.logTablet.logStartOffset
      case OffsetType.LATEST:
        return latest
      case OffsetType.TIMESTAMP: {
        if (param.startTimestamp === null) {
          throw new FlussError('INVALID_REQUEST', 'startTimestamp is required to list offsets by timestamp')
        }
        const offset = await this.logTablet.offsetForTimestamp(param.startTimestamp)
        return Math.min(offset, latest)
      }
      default:
        throw new FlussError('INVALID_REQUEST', `invalid list offsets type ${param.offsetType}`)
    }
  }

  /** ISR shrink (followers lagging beyond `log.replica.max-lag-time`): not implemented yet, never called. */
  maybeShrinkIsr(): never {
    throw new FlussError('OPERATION_NOT_ATTEMPTED_EXCEPTION', 'ISR shrink is not implemented')
  }

  /** ISR expansion (a caught-up follower rejoins): not implemented yet, never called. */
  maybeExpandIsr(): never {
    throw new FlussError('OPERATION_NOT_ATTEMPTED_EXCEPTION', 'ISR expansion is not implemented')
  }

  #updateFollowerFetchState(followerId: number, fetchOffset: number): void {
    const state = this.#followers.get(followerId)
    if (state === undefined) return
    const previous = state.logEndOffset
    state.logEndOffset = Math.min(fetchOffset, this.logTablet.logEndOffset)
    state.lastFetchTimeMs = this.#options.clock.nowMs()
    if (state.logEndOffset !== previous && this.maybeIncrementLeaderHW()) {
      this.#options.onChanged(this.tableBucket)
    }
  }

  #checkEpochs(data: NotifyLeaderAndIsrData): void {
    if (data.bucketEpoch < this.#bucketEpoch) {
      throw new FlussError(
        'INVALID_UPDATE_VERSION_EXCEPTION',
        `bucket epoch ${data.bucketEpoch} of ${this.name} is older than the current ${this.#bucketEpoch}`,
      )
    }
    this.checkLeaderEpoch(data.leaderEpoch, 'notify leader and isr')
  }

  #requireLeader(): void {
    if (!this.isLeader) {
      throw new FlussError(
        'NOT_LEADER_OR_FOLLOWER',
        `server ${this.#options.localServerId} is not the leader of ${this.name}`,
      )
    }
  }
}
