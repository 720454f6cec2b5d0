import type { BlobStore } from '@sluice/core/blobstore'
import { FlussError, toFlussError } from '@sluice/core/errors'
import { isMetaStoreConflict } from '@sluice/core/metastore'
import type {
  RemoteLogManifest,
  RemoteLogManifestStore,
  RemoteLogSegmentEntry,
  StoredManifest,
} from '@sluice/core/remotelog'
import { newRemoteId } from '@sluice/core/remotelog'
import { type Clock, type RetryPolicy, withRetry, withTimeout } from '@sluice/core/util'
import { deleteKeys, listTabletKeys, selectOrphans } from './orphan-sweep.js'
import { deletableLocalCount, uploadCandidates } from './remote-log-plan.js'
import type { RemoteLogStats } from './remote-log-stats.js'
import type { RemoteLogLogger, RemoteLogReplica, RemoteLogTableOptions } from './remote-log-types.js'
import { type RemoteCall, uploadSegment } from './segment-uploader.js'

export interface RemoteLogTaskSettings {
  /** `remote.log.task-max-upload-segments`. */
  readonly maxUploadSegments: number
  /** Unreferenced objects younger than this are left alone (they may be on their way to a commit). */
  readonly orphanSafetyWindowMs: number
  /** Time between orphan sweeps of one bucket (the first one runs when the task starts). */
  readonly orphanSweepIntervalMs: number
  /** Keys one sweep looks at, at most. */
  readonly orphanSweepMaxKeys: number
  readonly retry: RetryPolicy
}

export interface RemoteLogTaskDeps {
  readonly blobStore: BlobStore
  readonly manifestStore: RemoteLogManifestStore
  readonly stats: RemoteLogStats
  readonly logger: RemoteLogLogger
  readonly clock: Clock
  readonly sleep: (ms: number) => Promise<void>
  readonly random: () => number
  readonly settings: RemoteLogTaskSettings
}

/** What one run did; `error` is the failure that ended it early, if any. */
export interface RemoteLogRunResult {
  rolled: boolean
  uploaded: number
  expired: number
  committed: boolean
  localDeleted: number
  orphansDeleted: number
  error?: FlussError
}

/**
 * The remote log work of one bucket replica (Fluss's `LogTieringTask`). As leader, one run:
 *   1. seals a lake table's active segment when it is older than half the freshness;
 *   2. uploads sealed segments below the high watermark, each under a fresh segment id;
 *   3. commits the manifest: new segments appended, TTL-expired ones dropped (conditional write
 *      on the version read and on `leaderEpoch <= ours`); only then deletes expired objects;
 *   4. deletes local segments that the committed manifest covers, keeping the newest ones;
 *   5. now and then deletes objects no manifest refers to (leftovers of crashes).
 * A crash anywhere leaves either unreferenced objects (step 5 removes them) or local segments
 * already uploaded (step 4 of the next run removes them). As follower, a run only re-reads the
 * manifest and does step 4, so follower disks shrink too. Runs never overlap.
 */
export class RemoteLogTask {
  #stored: StoredManifest | null = null
  #loading: Promise<StoredManifest> | null = null
  #cancelled = false
  #lastSweepMs = Number.NEGATIVE_INFINITY
  #running: Promise<RemoteLogRunResult> | null = null
  readonly #call: RemoteCall

  constructor(
    readonly replica: RemoteLogReplica,
    readonly role: 'leader' | 'follower',
    private readonly deps: RemoteLogTaskDeps,
  ) {
    const hooks = {
      sleep: deps.sleep,
      random: deps.random,
      isCancelled: () => this.#cancelled,
      onRetry: (what: string, attempt: number, error: FlussError) => {
        deps.stats.add('retries')
        deps.logger.warn('remote log call failed, retrying', {
          bucket: this.name,
          what,
          attempt,
          error: error.message,
        })
      },
    }
    this.#call = (what, op) => withRetry(what, deps.settings.retry, hooks, op, 'remote log task stopped')
  }

  get name(): string {
    return this.replica.log.name
  }

  /** The committed manifest as last read or written; null until the first run loaded it. */
  get manifest(): RemoteLogManifest | null {
    return this.#stored?.manifest ?? null
  }

  get isCancelled(): boolean {
    return this.#cancelled
  }

  /** Stops the task: the current run gives up at its next step and commits nothing more. */
  cancel(): void {
    this.#cancelled = true
  }

  /** Waits for the run in progress, if any. */
  async idle(): Promise<void> {
    await this.#running?.catch(() => {})
  }

  /** One run; a run already in progress is joined rather than repeated. Never throws. */
  run(): Promise<RemoteLogRunResult> {
    this.#running ??= this.#runGuarded().finally(() => {
      this.#running = null
    })
    return this.#running
  }

  async #runGuarded(): Promise<RemoteLogRunResult> {
    const result: RemoteLogRunResult = {
      rolled: false,
      uploaded: 0,
      expired: 0,
      committed: false,
      localDeleted: 0,
      orphansDeleted: 0,
    }
    if (this.#cancelled || this.replica.log.isClosed) return result
    this.deps.stats.add('runs')
    try {
      if (this.role === 'leader') await this.#runAsLeader(result)
      else await this.#runAsFollower(result)
    } catch (e) {
      result.error = toFlussError(e)
      this.deps.stats.error('runErrors', e)
      this.deps.logger.warn('remote log task run failed', { bucket: this.name, error: result.error.message })
    }
    return result
  }

  async #runAsLeader(result: RemoteLogRunResult): Promise<void> {
    const options = this.replica.tableOptions()
    result.rolled = await this.#maybeRollForFreshness(options)
    const stored = await this.#ensureLoaded()
    const upload = await this.#uploadNewSegments(stored.manifest)
    result.uploaded = upload.entries.length
    const lakeEnd = this.replica.lakeLogEndOffset?.() ?? null
    const expired = stored.manifest.expiredCount(this.deps.clock.nowMs(), options.logTtlMs, lakeEnd)
    if (this.#cancelled) {
      await this.#discard(upload.entries)
      return
    }
    if (upload.entries.length > 0 || expired > 0) {
      await this.#commit(stored, upload.entries, expired)
      result.committed = true
      result.expired = expired
    }
    result.localDeleted = await this.#deleteLocalCopies(options)
    if (upload.error) throw upload.error
    result.orphansDeleted = await this.#maybeSweepOrphans()
  }

  async #runAsFollower(result: RemoteLogRunResult): Promise<void> {
    this.#stored = await this.#call('load remote log manifest', () =>
      this.deps.manifestStore.load(this.replica.tableBucket),
    )
    result.localDeleted = await this.#deleteLocalCopies(this.replica.tableOptions())
  }

  /**
   * Loads the manifest ahead of the first run, so that remote reads work as soon as this server
   * leads the bucket. Failures are left to the first run, which loads again.
   */
  async prepare(): Promise<void> {
    if (this.role === 'leader' && !this.#cancelled) await this.#ensureLoaded().catch(() => {})
  }

  async #ensureLoaded(): Promise<StoredManifest> {
    if (this.#stored === null) {
      this.#loading ??= this.#call('load remote log manifest', () =>
        this.deps.manifestStore.load(this.replica.tableBucket),
      ).finally(() => {
        this.#loading = null
      })
      const loaded = await this.#loading
      this.#stored ??= loaded
    }
    this.#checkEpoch(this.#stored.leaderEpoch)
    return this.#stored
  }

  async #maybeRollForFreshness(options: RemoteLogTableOptions): Promise<boolean> {
    if (!options.datalakeEnabled || options.datalakeFreshnessMs <= 0) return false
    const rolled = await this.replica.log.maybeRoll(
      this.deps.clock.nowMs(),
      Math.floor(options.datalakeFreshnessMs / 2),
    )
    if (rolled) this.deps.stats.add('freshnessRolls')
    return rolled
  }

  /** Uploads the candidates in order; stops at the first failure (reported, not thrown). */
  async #uploadNewSegments(
    manifest: RemoteLogManifest,
  ): Promise<{ entries: RemoteLogSegmentEntry[]; error?: FlussError }> {
    const { log } = this.replica
    const sealed = await log.sealedSegments()
    const candidates = uploadCandidates(
      sealed,
      log.highWatermark,
      manifest,
      this.deps.settings.maxUploadSegments,
    )
    const entries: RemoteLogSegmentEntry[] = []
    for (const segment of candidates) {
      if (this.#cancelled) break
      const segmentId = newRemoteId(this.deps.clock.nowMs())
      try {
        entries.push(
          await uploadSegment(this.deps.blobStore, manifest.tabletPrefix, segmentId, segment, this.#call),
        )
        this.deps.stats.add('segmentsUploaded')
        this.deps.stats.add('bytesUploaded', segment.sizeInBytes)
      } catch (e) {
        this.deps.stats.error('uploadErrors', e)
        const keys = manifest.keysOf({ ...segment, segmentId, hasWriterSnapshot: true })
        await this.#deleteOnce(Object.values(keys))
        return { entries, error: toFlussError(e) }
      }
    }
    return { entries }
  }

  async #commit(
    previous: StoredManifest,
    added: RemoteLogSegmentEntry[],
    expiredCount: number,
  ): Promise<void> {
    const expired = previous.manifest.segments.slice(0, expiredCount)
    const next = previous.manifest.withoutOldest(expiredCount).withAppended(added)
    try {
      this.#stored = await this.#call('commit remote log manifest', () =>
        this.deps.manifestStore.commit(this.replica.tableBucket, previous, next, this.replica.leaderEpoch),
      )
    } catch (e) {
      if (!(await this.#appliedDespite(e, added, expired))) throw e
    }
    this.deps.stats.add('commits')
    this.deps.stats.add('segmentsExpired', expired.length)
    const obsolete = expired.flatMap(s => Object.values(previous.manifest.keysOf(s)))
    if (previous.manifestKey !== null && previous.manifestKey !== this.#stored?.manifestKey)
      obsolete.push(previous.manifestKey)
    await this.#deleteQuietly(obsolete)
  }

  /**
   * After a failed commit: true when the write took effect after all (an earlier attempt timed out
   * but applied). A lost condition reloads the manifest and deletes this run's uploads; a newer
   * leader epoch fences the task. Any other failure leaves the uploads for the orphan sweep, since
   * the write may have applied.
   */
  async #appliedDespite(
    e: unknown,
    added: RemoteLogSegmentEntry[],
    expired: RemoteLogSegmentEntry[],
  ): Promise<boolean> {
    if (!isMetaStoreConflict(e)) {
      this.#stored = null
      return false
    }
    this.deps.stats.add('commitConflicts')
    const currentEpoch = e.current?.value.leaderEpoch
    if (typeof currentEpoch === 'number') this.#checkEpoch(currentEpoch, added)
    const reloaded = await this.#call('load remote log manifest', () =>
      this.deps.manifestStore.load(this.replica.tableBucket),
    )
    this.#stored = reloaded
    this.#checkEpoch(reloaded.leaderEpoch, added)
    const applied =
      reloaded.leaderEpoch === this.replica.leaderEpoch &&
      added.every(s => reloaded.manifest.has(s.segmentId)) &&
      expired.every(s => !reloaded.manifest.has(s.segmentId))
    if (!applied) await this.#discard(added)
    return applied
  }

  /** Fences the task when the manifest was written by a newer leader. */
  #checkEpoch(storedEpoch: number, uploads: RemoteLogSegmentEntry[] = []): void {
    if (storedEpoch <= this.replica.leaderEpoch || this.role !== 'leader') return
    this.#cancelled = true
    this.deps.stats.add('fenced')
    const error = new FlussError(
      'FENCED_LEADER_EPOCH_EXCEPTION',
      `remote log manifest of ${this.name} was written by leader epoch ${storedEpoch}, this leader has epoch ${this.replica.leaderEpoch}`,
    )
    this.deps.logger.warn('remote log task fenced', { bucket: this.name, error: error.message })
    void this.#discard(uploads)
    this.replica.onFenced?.(error)
    throw error
  }

  async #deleteLocalCopies(options: RemoteLogTableOptions): Promise<number> {
    const manifest = this.#stored?.manifest
    if (!manifest || manifest.isEmpty || this.#cancelled) return 0
    const { log } = this.replica
    const sealed = await log.sealedSegments()
    const minRetain = this.replica.minRetainOffset?.() ?? Number.POSITIVE_INFINITY
    const count = deletableLocalCount(
      sealed,
      manifest,
      {
        localSegments: options.localSegments,
        localTtlMs: options.localTtlMs,
        nowMs: this.deps.clock.nowMs(),
      },
      minRetain,
    )
    if (count === 0) return 0
    const deleted = await log.deleteSegmentsBelow(sealed[count - 1]?.endOffset ?? 0)
    this.deps.stats.add('localSegmentsDeleted', deleted)
    return deleted
  }

  async #maybeSweepOrphans(): Promise<number> {
    const nowMs = this.deps.clock.nowMs()
    const { settings, blobStore, manifestStore } = this.deps
    if (this.#cancelled || nowMs - this.#lastSweepMs < settings.orphanSweepIntervalMs) return 0
    this.#lastSweepMs = nowMs
    const prefix = this.#stored?.manifest.tabletPrefix
    if (prefix === undefined) return 0
    const keys = await listTabletKeys(blobStore, prefix, settings.orphanSweepMaxKeys, this.#call)
    const fresh = await this.#call('load remote log manifest', () =>
      manifestStore.load(this.replica.tableBucket),
    )
    this.#stored = fresh
    this.#checkEpoch(fresh.leaderEpoch)
    const orphans = selectOrphans(keys, fresh, nowMs, settings.orphanSafetyWindowMs)
    const deleted = await this.#deleteQuietly(orphans)
    this.deps.stats.add('orphansDeleted', deleted)
    if (deleted > 0)
      this.deps.logger.info('deleted orphaned remote log objects', { bucket: this.name, count: deleted })
    return deleted
  }

  /**
   * Deletes objects of uploads that will never be committed: one attempt, also after the task was
   * stopped (the keys are this run's own, so no one else refers to them); the sweep is the backstop.
   */
  async #discard(entries: readonly RemoteLogSegmentEntry[]): Promise<void> {
    const manifest = this.#stored?.manifest
    if (entries.length === 0 || !manifest) return
    await this.#deleteOnce(entries.flatMap(s => Object.values(manifest.keysOf(s))))
  }

  async #deleteOnce(keys: readonly string[]): Promise<void> {
    const { blobStore, settings } = this.deps
    const once: RemoteCall = (what, op) => withTimeout(what, settings.retry.operationTimeoutMs, op)
    await deleteKeys(blobStore, keys, once).catch(e => this.deps.stats.error('deleteErrors', e))
  }

  async #deleteQuietly(keys: readonly string[]): Promise<number> {
    if (keys.length === 0) return 0
    try {
      const n = await deleteKeys(this.deps.blobStore, keys, this.#call)
      this.deps.stats.add('objectsDeleted', n)
      return n
    } catch (e) {
      this.deps.stats.error('deleteErrors', e)
      this.deps.logger.warn('deleting remote log objects failed', {
        bucket: this.name,
        error: toFlussError(e).message,
      })
      return 0
    }
  }
}
