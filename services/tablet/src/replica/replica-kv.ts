import type { FlussError } from '@sluice/core/errors'
import { KvRecordBatch } from '@sluice/core/kvbatch'
import {
  type KeyRouter,
  type KvManager,
  type KvPutOptions,
  type KvPutResult,
  type KvReplica,
  type KvTablet,
  keyRouter,
} from '../kv/index.js'
import type { LeaderKvSteps } from './leadership-hooks.js'

/** What the KV side of a replica needs of the replica itself. */
export interface ReplicaKvHost extends KvReplica {
  /** acks=-1 with fewer in-sync replicas than the minimum: NOT_ENOUGH_REPLICAS_EXCEPTION. */
  checkInSyncReplicas(requiredAcks: number): void
}

export interface ReplicaKvCallbacks {
  /** Resolves once a leadership in preparation is ready or has failed; undefined when none is. */
  whenReady(): Promise<void> | undefined
  /** A put appended to the log: wake waiting requests and move the high watermark (resolves when moved). */
  afterAppend(): Promise<void>
  /** The KvTablet of a new leadership opened: the high watermark held meanwhile may move. */
  afterOpen(): void
  /** NOT_LEADER_OR_FOLLOWER in Fluss's words. */
  notLeader(): FlussError
}

/**
 * The KV side of a replica of a primary-key bucket: while it leads, its KvTablet (opened through
 * the KvManager when the leadership is prepared, closed when it ends) and the requests it serves
 * with it; the key router that requests' keys are checked with. Without a KvManager no KvTablet is
 * ever open (and the high watermark is not held for one).
 */
export class ReplicaKv {
  #tablet: KvTablet | null = null
  #router: KeyRouter | null | undefined

  constructor(
    private readonly replica: ReplicaKvHost,
    private readonly manager: KvManager | undefined,
    private readonly callbacks: ReplicaKvCallbacks,
  ) {}

  /**
   * What the high watermark of the leader waits for: the open KvTablet (none: it stays), which
   * flushes up to it first. Undefined without a KvManager (the high watermark moves at once).
   */
  highWatermarkGate(): (() => KvTablet | null) | undefined {
    return this.manager === undefined ? undefined : () => this.tablet
  }

  /** Opening and closing the KvTablet as steps of the leadership transitions (none without a KvManager). */
  leadershipSteps(): LeaderKvSteps | undefined {
    return this.manager === undefined ? undefined : { open: () => this.#open(), close: () => this.#close() }
  }

  /** The open KvTablet while the replica leads; null otherwise. */
  get tablet(): KvTablet | null {
    const tablet = this.#tablet
    return tablet !== null && this.replica.isLeader && !tablet.isClosed ? tablet : null
  }

  /** Which bucket each key belongs to; undefined for a table whose keys cannot be encoded. */
  get keyRouter(): KeyRouter | undefined {
    if (this.#router === undefined) this.#router = routerOrNull(this.replica, this.manager)
    return this.#router ?? undefined
  }

  /** See `Replica.putRecordsToLeader`. */
  async put(
    records: Buffer,
    requiredAcks: number,
    options: KvPutOptions,
    route: ((records: Buffer) => Promise<Buffer>) | undefined,
  ): Promise<KvPutResult> {
    const preparing = this.callbacks.whenReady()
    if (preparing !== undefined) await preparing
    // A batch of a schema newer than the ones known makes it known first (once per new schema).
    if (this.tablet !== null) {
      const schemaId = kvBatchSchemaId(records)
      if (schemaId !== undefined) await this.replica.schemas.ensure(schemaId)
    }
    const kv = this.#leaderTabletNow()
    this.replica.checkInSyncReplicas(requiredAcks)
    const own = route === undefined ? records : await route(records)
    const put = await kv.putAsLeader(own, options)
    await this.callbacks.afterAppend()
    return put
  }

  /** See `Replica.insertIfNotExists`. */
  async insertIfNotExists(keys: readonly Buffer[], requiredAcks: number): Promise<KvPutResult> {
    const kv = await this.leaderTablet()
    this.replica.checkInSyncReplicas(requiredAcks)
    const put = await kv.insertIfNotExists(keys)
    await this.callbacks.afterAppend()
    return put
  }

  /** The leader's open KvTablet, once a leadership in preparation is ready; NOT_LEADER_OR_FOLLOWER when none. */
  async leaderTablet(): Promise<KvTablet> {
    const preparing = this.callbacks.whenReady()
    if (preparing !== undefined) await preparing
    return this.#leaderTabletNow()
  }

  #leaderTabletNow(): KvTablet {
    const kv = this.tablet
    if (kv === null) throw this.callbacks.notLeader()
    return kv
  }

  /** A new leadership: opens the KvTablet for the epoch the replica leads now. */
  async #open(): Promise<void> {
    if (this.manager === undefined) return
    const epoch = this.replica.leaderEpoch
    const tablet = await this.manager.openKv(this.replica)
    if (tablet === null || !this.replica.isLeader || this.replica.leaderEpoch !== epoch) return
    this.#tablet = tablet
    this.callbacks.afterOpen()
  }

  /** The leadership ended: the KvTablet closes (its directory stays). */
  async #close(): Promise<void> {
    this.#tablet = null
    await this.manager?.closeKv(this.replica.tableBucket)
  }

  /** The leadership changed: the KvTablet of the previous one serves no more. */
  forget(): void {
    this.#tablet = null
  }

  /** STOP_REPLICA: the KvTablet closes; local KV state and KV snapshots are deleted as asked. */
  async drop(deleteLocal: boolean, deleteRemote: boolean): Promise<void> {
    this.#tablet = null
    await this.manager?.dropKv(this.replica, deleteLocal, deleteRemote)
  }
}

/** The schema id a KV batch names; undefined for a malformed batch (the put refuses it with its error). */
function kvBatchSchemaId(records: Buffer): number | undefined {
  try {
    return KvRecordBatch.from(records).schemaId
  } catch {
    return undefined
  }
}

/**
 * The key router of a table (the KvManager's); none for a table whose keys cannot be encoded (no
 * client can write it) or whose keys the KvManager does not check.
 */
function routerOrNull(replica: KvReplica, manager: KvManager | undefined): KeyRouter | null {
  try {
    return (
      (manager === undefined ? keyRouter(replica.tableInfo) : manager.keyRouterOf(replica.tableInfo)) ?? null
    )
  } catch {
    return null
  }
}
