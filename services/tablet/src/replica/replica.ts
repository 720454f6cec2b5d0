import { FlussError } from '@sluice/core/errors'
import type { PhysicalTablePath, TableBucket, TableInfo } from '@sluice/core/metadata'
import { tableBucketToString } from '@sluice/core/metadata'
import type { Clock } from '@sluice/core/util'
import type { KeyRouter, KvManager, KvPutOptions, KvPutResult, KvTablet, TableSchemas } from '../kv/index.js'
import type { LogAppendInfo, LogReadResult, LogTablet, ValidatedRecords } from '../log/index.js'
import { batchesBelow } from './follower-read.js'
import { HighWatermarkMover } from './high-watermark.js'
import type { IsrState } from './isr-state.js'
import type { LeaderEpochCache } from './leader-epoch-cache.js'
import { LeadershipHooks } from './leadership-hooks.js'
import type { ReplicaHooks, ReplicaWarn } from './replica-hooks.js'
import { LeaderIsr } from './replica-isr.js'
import { ReplicaIsrWrites } from './replica-isr-writes.js'
import { ReplicaKv } from './replica-kv.js'
import { leaderOffset } from './replica-offsets.js'
import {
  FETCH_FROM_EARLIEST_OFFSET,
  type IsrWriter,
  type ListOffsetsParam,
  type NotifyLeaderAndIsrData,
} from './replica-types.js'

export interface ReplicaOptions {
  readonly localServerId: number
  readonly tableBucket: TableBucket
  readonly physicalTablePath: PhysicalTablePath
  readonly tableInfo: TableInfo
  /** The table's schemas, shared by its replicas on this server. */
  readonly schemas: TableSchemas
  readonly logTablet: LogTablet
  /** The bucket's leader epoch history (`leader-epoch-checkpoint` in the log directory). */
  readonly epochCache: LeaderEpochCache
  /** `log.replica.min-in-sync-replicas-number`. */
  readonly minInSyncReplicas: number
  /** `log.replica.max-lag-time`. */
  readonly maxLagMs: number
  /** Writes ISR changes to the control plane. */
  readonly isrWriter: IsrWriter
  /** Pause before a failed ISR write is tried again. */
  readonly isrRetryBackoffMs: number
  readonly clock: Clock
  readonly hooks?: ReplicaHooks
  /** Opens and closes the KvTablet of a primary-key bucket this replica leads. */
  readonly kvManager?: KvManager
  readonly warn?: ReplicaWarn
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
 * One bucket replica hosted on this server (Fluss's `Replica`): its LogTablet, on the leader of a
 * primary-key bucket its KvTablet, plus the leadership state the coordinator assigned. As leader it
 * takes appends and puts (once its leadership is prepared: epoch recorded, hooks done, KvTablet
 * open), serves lookups, tracks followers, keeps the ISR (shrink and expansion written to the
 * control plane by `ReplicaIsrWrites`) and moves the high watermark to the smallest log end offset
 * over the ISR; as follower it takes the batches its fetcher brings. A leader whose ISR write finds
 * it deposed stops acting as leader until the coordinator tells it what it is.
 */
export class Replica {
  readonly tableBucket: TableBucket
  readonly physicalTablePath: PhysicalTablePath
  readonly tableInfo: TableInfo
  readonly schemas: TableSchemas
  readonly logTablet: LogTablet
  readonly epochCache: LeaderEpochCache
  readonly #options: ReplicaOptions
  readonly #isr: LeaderIsr
  readonly #isrWrites: ReplicaIsrWrites
  #leaderId: number | null = null
  #leaderEpoch = -1
  #bucketEpoch = -1
  #epochStartOffset = 0
  readonly #hooks: LeadershipHooks
  readonly #highWatermark: HighWatermarkMover
  /** The KV state of a primary-key bucket (with a KvManager); undefined otherwise. */
  readonly #kv: ReplicaKv | undefined
  #followerWork: Promise<unknown> = Promise.resolve()

  constructor(options: ReplicaOptions) {
    this.#options = options
    this.tableBucket = options.tableBucket
    this.physicalTablePath = options.physicalTablePath
    this.tableInfo = options.tableInfo
    this.schemas = options.schemas
    this.logTablet = options.logTablet
    this.epochCache = options.epochCache
    this.#isr = new LeaderIsr({
      localServerId: options.localServerId,
      maxLagMs: options.maxLagMs,
      log: options.logTablet,
    })
    this.#kv = options.tableInfo.hasPrimaryKey
      ? new ReplicaKv(this, options.kvManager, {
          whenReady: () => this.#whenReady(),
          afterAppend: async () => {
            // The log end moved: wake the followers' parked fetches, then move the high watermark.
            options.onChanged(options.tableBucket)
            this.maybeIncrementLeaderHighWatermark()
            await this.#highWatermark.settled()
          },
          afterOpen: () => this.maybeIncrementLeaderHighWatermark(),
          notLeader: () => this.#notLeader(),
        })
      : undefined
    const warn: ReplicaWarn = (m, e) => this.#warn(m, e)
    this.#highWatermark = new HighWatermarkMover(
      this,
      options.logTablet,
      options.hooks,
      warn,
      () => options.onChanged(options.tableBucket),
      this.#kv?.highWatermarkGate(),
    )
    this.#hooks = new LeadershipHooks(
      this,
      options.epochCache,
      options.hooks,
      warn,
      this.#kv?.leadershipSteps(),
    )
    this.#isrWrites = new ReplicaIsrWrites(this, this.#isr, {
      writer: options.isrWriter,
      retryBackoffMs: options.isrRetryBackoffMs,
      warn: (m, e) => this.#warn(m, e),
      onCommitted: bucketEpoch => this.#onIsrCommitted(bucketEpoch),
      onDeposed: leader => this.#stepDown(leader),
      onOutcome: outcome => options.hooks?.onIsrUpdate?.(this, outcome),
    })
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
  get localServerId(): number {
    return this.#options.localServerId
  }
  get isLeader(): boolean {
    return this.#leaderId === this.#options.localServerId
  }
  /** The ISR as acks=all counts it (the committed one, or the larger one while a shrink is pending). */
  get isr(): readonly number[] {
    return this.#isr.isr
  }
  /** The ISR state, with a change in flight if any. */
  get isrState(): IsrState {
    return this.#isr.state
  }
  get name(): string {
    return tableBucketToString(this.tableBucket)
  }
  /** The fields of this replica's log lines: table, partition, bucket, leader epoch. */
  get logFields(): Readonly<Record<string, unknown>> {
    const p = this.#options.physicalTablePath
    return {
      table: `${p.tablePath.databaseName}.${p.tablePath.tableName}`,
      ...(p.partitionName === undefined ? {} : { partition: p.partitionName }),
      tableId: this.tableBucket.tableId,
      bucket: this.tableBucket.bucket,
      leaderEpoch: this.#leaderEpoch,
    }
  }
  /** `log.replica.min-in-sync-replicas-number`. */
  get minInSyncReplicas(): number {
    return this.#options.minInSyncReplicas
  }
  /** A leader whose ISR is smaller than its assignment (Fluss's `underReplicated`). */
  get isUnderReplicated(): boolean {
    return this.isLeader && this.#isr.isr.length < this.#isr.assignedReplicas
  }
  get isUnderMinIsr(): boolean {
    return this.isLeader && this.#isr.isr.length < this.#options.minInSyncReplicas
  }
  /** The leader's log end offset when it took its current epoch. */
  get epochStartOffset(): number {
    return this.#epochStartOffset
  }
  /** Records a client can read: high watermark minus log start (Fluss's `getRowCount` for logs). */
  get rowCount(): number {
    return this.logTablet.highWatermark - this.logTablet.logStartOffset
  }
  /** The open KvTablet of a primary-key bucket this replica leads; null otherwise. */
  get kvTablet(): KvTablet | null {
    return this.#kv?.tablet ?? null
  }
  /** Which bucket each key of a primary-key table belongs to; undefined when keys are not checked. */
  get keyRouter(): KeyRouter | undefined {
    return this.#kv?.keyRouter
  }
  /** Followers' log end offsets as the leader last saw them (-1 = not fetched yet). */
  followerLogEndOffset(followerId: number): number | undefined {
    return this.#isr.follower(followerId)?.logEndOffset
  }

  /** Resolves once this leader takes writes; rejects when preparing the leadership failed. */
  whenLeaderReady(): Promise<void> {
    this.checkLeader()
    return this.#hooks.ready
  }

  /**
   * Becomes (or stays) leader. A newer leader epoch records (epoch, log end offset) in the epoch
   * cache, resets the follower tracking and prepares the leadership (epoch cache on disk, then
   * `onBecomeLeader`); the same epoch only refreshes the assignment and ISR; an older one is
   * FENCED_LEADER_EPOCH_EXCEPTION.
   */
  makeLeader(data: NotifyLeaderAndIsrData): void {
    this.#checkEpochs(data)
    const isNewEpoch = data.leaderEpoch > this.#leaderEpoch
    if (!isNewEpoch && !this.isLeader) {
      // A leader change always moves the epoch: this is a stale notice (e.g. for a deposed leader).
      throw new FlussError(
        'FENCED_LEADER_EPOCH_EXCEPTION',
        `${this.name} does not lead at epoch ${data.leaderEpoch}; only a newer epoch can make it leader`,
      )
    }
    this.#isr.assign(data.replicas, data.isr, isNewEpoch, this.#options.clock.nowMs())
    this.#leaderId = this.#options.localServerId
    this.#leaderEpoch = data.leaderEpoch
    this.#bucketEpoch = data.bucketEpoch
    if (isNewEpoch) {
      const log = this.logTablet
      this.epochCache.truncateFromEnd(log.logEndOffset + 1)
      this.epochCache.truncateFromStart(log.logStartOffset)
      this.epochCache.assign(data.leaderEpoch, log.logEndOffset)
      this.#epochStartOffset = log.logEndOffset
      this.#kv?.forget()
      this.#hooks.becameLeader()
    }
    this.maybeIncrementLeaderHighWatermark()
    this.#options.onChanged(this.tableBucket)
  }

  /**
   * Becomes (or stays) follower of `data.leader`; true when the leader epoch is new. A former
   * leader's `onBecomeFollower` runs after its `onBecomeLeader` finished (see `whenHooksSettled`).
   */
  makeFollower(data: NotifyLeaderAndIsrData): boolean {
    this.#checkEpochs(data)
    const isNewEpoch = data.leaderEpoch > this.#leaderEpoch
    const wasLeader = this.isLeader
    this.#isr.clear()
    // The coordinator sends -1 when the bucket has no leader (none of its ISR is live).
    this.#leaderId = data.leader >= 0 ? data.leader : null
    this.#leaderEpoch = data.leaderEpoch
    this.#bucketEpoch = data.bucketEpoch
    this.#options.onChanged(this.tableBucket)
    // A new follower epoch runs `onBecomeFollower` too (a replica that never led registers its
    // follower-side work, e.g. deleting local segments already in remote storage).
    if (wasLeader || isNewEpoch) this.#endLeadership()
    return isNewEpoch
  }

  /** Gives up leadership without a new leader (the replica is being stopped). */
  resign(): void {
    const wasLeader = this.isLeader
    this.#leaderId = null
    this.#isr.clear()
    this.#options.onChanged(this.tableBucket)
    if (wasLeader) this.#endLeadership()
  }

  /** Resolves once the leadership hooks of every transition so far have run. */
  whenHooksSettled(): Promise<void> {
    return this.#hooks.settled()
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

  /** acks=-1 needs at least `log.replica.min-in-sync-replicas-number` in-sync replicas. */
  checkInSyncReplicas(requiredAcks: number): void {
    if (requiredAcks === -1 && this.#isr.isr.length < this.#options.minInSyncReplicas) {
      throw new FlussError(
        'NOT_ENOUGH_REPLICAS_EXCEPTION',
        `The size of the current ISR [${this.#isr.isr.join(', ')}] is insufficient to satisfy ` +
          `the required acks ${requiredAcks} for table bucket ${this.name}.`,
      )
    }
  }

  /**
   * The leader's append: waits for the leadership to be prepared, checks the ISR for acks=all,
   * appends, then maybe moves the high watermark. An append that completes after this replica
   * stopped leading its epoch is answered NOT_LEADER_OR_FOLLOWER (the new leader's log decides).
   */
  async appendRecordsToLeader(
    records: Uint8Array | ValidatedRecords,
    requiredAcks: number,
  ): Promise<LogAppendInfo> {
    this.checkLeader()
    const epoch = this.#leaderEpoch
    await this.#hooks.ready
    this.#requireLeaderAt(epoch)
    this.checkInSyncReplicas(requiredAcks)
    const info = await this.logTablet.appendAsLeader(records)
    this.#requireLeaderAt(epoch)
    this.maybeIncrementLeaderHighWatermark()
    this.#options.onChanged(this.tableBucket)
    return info
  }

  /**
   * The leader's put of a KV batch (Fluss's `putRecordsToLeader`): once the leadership is ready,
   * the batch's schema is made known, the ISR checked for acks=all, `route` may take out records
   * whose keys belong to other buckets, then the KvTablet merges the batch and appends its
   * changelog to the log; the high watermark then moves (as far as the KvTablet has flushed).
   */
  async putRecordsToLeader(
    records: Buffer,
    requiredAcks: number,
    options: KvPutOptions,
    route?: (records: Buffer) => Promise<Buffer>,
  ): Promise<KvPutResult> {
    return this.#kvOf().put(records, requiredAcks, options, route)
  }

  /** Puts rows for the keys that are not stored (an insert-if-not-exists lookup), like a put. */
  async insertIfNotExists(keys: readonly Buffer[], requiredAcks: number): Promise<KvPutResult> {
    return this.#kvOf().insertIfNotExists(keys, requiredAcks)
  }

  /**
   * The leader's open KvTablet for lookups and scans, once a leadership in preparation is ready (a
   * failed preparation leaves none): NON_PRIMARY_KEY_TABLE_EXCEPTION on a log table,
   * NOT_LEADER_OR_FOLLOWER when this replica does not lead or has no open KvTablet.
   */
  async awaitLeaderKv(notPrimaryKey?: string): Promise<KvTablet> {
    return this.#kvOf(notPrimaryKey).leaderTablet()
  }

  /**
   * STOP_REPLICA: the KvTablet of a primary-key bucket is closed; with `deleteLocal` its local KV
   * state, with `deleteRemote` its KV snapshots, are deleted.
   */
  async stopKv(deleteLocal: boolean, deleteRemote: boolean): Promise<void> {
    await this.#kv?.drop(deleteLocal, deleteRemote)
  }

  /**
   * Runs follower log work (reconciling with a leader, appending fetched batches) one task at a
   * time, so a fetcher of a previous leader can never interleave with the next one's work.
   */
  runFollowerTask<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#followerWork.then(task)
    this.#followerWork = run.catch(() => undefined)
    return run
  }

  /** The follower's append of batches fetched from the leader (offsets kept). */
  appendRecordsToFollower(records: Uint8Array): Promise<LogAppendInfo> {
    return this.logTablet.appendAsFollower(records)
  }

  /**
   * A fetch served by the leader. Clients read below the high watermark; followers read to the log
   * end (or, until they learned this epoch's start, to that start), and their fetch offset is
   * recorded as their log end offset, which may move the high watermark and grow the ISR.
   */
  async readRecords(params: ReplicaReadParams): Promise<LogReadResult> {
    this.checkLeader()
    const fromFollower = params.replicaId >= 0
    const follower = fromFollower ? this.#isr.follower(params.replicaId) : undefined
    if (fromFollower && follower === undefined) {
      throw new FlussError(
        'NOT_LEADER_OR_FOLLOWER',
        `Replica ${params.replicaId} is not recognized as a valid replica of ${this.name}`,
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
    if (follower === undefined) return result
    const records = follower.epochConfirmed
      ? result.records
      : batchesBelow(result.records, this.#epochStartOffset)
    this.#onFollowerFetch(params.replicaId, fetchOffset)
    return { ...result, records, highWatermark: this.logTablet.highWatermark }
  }

  /** The ISR expiration check (every half `log.replica.max-lag-time`): drop followers out of sync. */
  maybeShrinkIsr(): void {
    if (!this.isLeader) return
    const pending = this.#isr.prepareShrink(this.#options.clock.nowMs())
    if (pending === undefined) return
    this.#warn(
      `shrinking the ISR of ${this.name} from [${pending.isr}] to [${pending.proposedIsr}] ` +
        `(leader end offset ${this.logTablet.logEndOffset}, high watermark ${this.logTablet.highWatermark})`,
    )
    this.#isrWrites.submit(pending)
  }

  /**
   * Moves the leader's high watermark to the smallest log end offset over the ISR, forward only,
   * and not while the ISR is below the minimum. On a primary-key bucket the move waits for the
   * KvTablet to flush up to it and happens asynchronously (false here; waiters are woken when it
   * lands). True when it moved now.
   */
  maybeIncrementLeaderHighWatermark(): boolean {
    if (!this.isLeader || this.isUnderMinIsr) return false
    const candidate = this.#isr.highWatermarkCandidate(this.#options.clock.nowMs())
    if (candidate < 0 || candidate <= this.logTablet.highWatermark) return false
    return this.#highWatermark.advanceLeader(candidate, this.#leaderEpoch)
  }

  /** A follower's high watermark: the leader's, but never above its own log end. */
  updateFollowerHighWatermark(leaderHighWatermark: number): void {
    this.#highWatermark.updateFollower(leaderHighWatermark)
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
    if (this.#isr.isr.length < this.#options.minInSyncReplicas) {
      // Fluss sends this code with its default text.
      return { done: true, error: new FlussError('NOT_ENOUGH_REPLICAS_AFTER_APPEND_EXCEPTION') }
    }
    return { done: true }
  }

  /** LIST_OFFSETS on the leader (see `leaderOffset`). */
  getOffset(param: ListOffsetsParam): Promise<number> {
    this.checkLeader()
    return leaderOffset(
      {
        name: this.name,
        logTablet: this.logTablet,
        epochCache: this.epochCache,
        epochStartOffset: this.#epochStartOffset,
        leaderEpoch: this.#leaderEpoch,
        onFollowerEpochQuery: (id, epoch) => {
          const follower = this.#isr.follower(id)
          if (follower !== undefined && epoch >= this.#leaderEpoch) follower.epochConfirmed = true
        },
      },
      param,
    )
  }

  #onFollowerFetch(followerId: number, fetchOffset: number): void {
    const nowMs = this.#options.clock.nowMs()
    const moved = this.#isr.updateFollowerFetchState(followerId, fetchOffset, nowMs)
    const pending = this.#isr.prepareExpand(followerId, this.#epochStartOffset, nowMs)
    if (pending !== undefined) {
      this.#warn(`expanding the ISR of ${this.name} from [${pending.isr}] to [${pending.proposedIsr}]`)
      this.#isrWrites.submit(pending)
    }
    if ((moved || pending !== undefined) && this.maybeIncrementLeaderHighWatermark())
      this.#options.onChanged(this.tableBucket)
  }

  #onIsrCommitted(bucketEpoch: number): void {
    this.#bucketEpoch = Math.max(this.#bucketEpoch, bucketEpoch)
    this.maybeIncrementLeaderHighWatermark()
    this.#options.onChanged(this.tableBucket)
  }

  /** Deposed (found by a failed ISR write): stop leading; the coordinator's notification decides what next. */
  #stepDown(storedLeader: number | null): void {
    if (!this.isLeader) return
    this.#warn(
      `${this.name} is no longer led by server ${this.#options.localServerId} at epoch ${this.#leaderEpoch} ` +
        `(stored leader ${storedLeader}); it stops acting as leader`,
    )
    this.#leaderId = storedLeader === this.#options.localServerId ? null : storedLeader
    this.#isr.clear()
    this.#options.onChanged(this.tableBucket)
    this.#endLeadership()
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

  /** NOT_LEADER_OR_FOLLOWER (Fluss's text) unless this replica leads its bucket. */
  checkLeader(): void {
    if (!this.isLeader) throw this.#notLeader()
  }

  #notLeader(): FlussError {
    return new FlussError(
      'NOT_LEADER_OR_FOLLOWER',
      `Leader not local for bucket ${this.name} on tabletServer ${this.#options.localServerId}`,
    )
  }

  /** A leadership in preparation, to wait for (its failure shows up as a missing KvTablet); else undefined. */
  #whenReady(): Promise<void> | undefined {
    if (!this.isLeader || this.#hooks.readySettled) return undefined
    return this.#hooks.ready.catch(() => undefined)
  }

  /** The KV side of a primary-key bucket; NON_PRIMARY_KEY_TABLE_EXCEPTION on a log table. */
  #kvOf(notPrimaryKey = `the primary key table not exists for ${this.name}`): ReplicaKv {
    if (this.#kv === undefined) throw new FlussError('NON_PRIMARY_KEY_TABLE_EXCEPTION', notPrimaryKey)
    return this.#kv
  }

  #endLeadership(): void {
    this.#kv?.forget()
    this.#hooks.leadershipEnded()
  }

  #requireLeaderAt(epoch: number): void {
    if (!this.isLeader || this.#leaderEpoch !== epoch) {
      throw new FlussError(
        'NOT_LEADER_OR_FOLLOWER',
        `server ${this.#options.localServerId} stopped leading ${this.name} at epoch ${epoch}`,
      )
    }
  }

  #warn(message: string, error?: unknown): void {
    this.#options.warn?.(message, error, this.logFields)
  }
}
