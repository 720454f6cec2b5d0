/** Counters of the remote log (monotonic since the server started), for metrics and tests. */
export interface RemoteLogCounters {
  /** Bucket task runs, and runs that ended with an error. */
  runs: number
  runErrors: number
  /** Segments uploaded (all their files), and their log bytes. */
  segmentsUploaded: number
  bytesUploaded: number
  uploadErrors: number
  /** Manifest commits that won, lost their condition, or found a newer leader (fenced). */
  commits: number
  commitConflicts: number
  fenced: number
  /** Calls retried after a retriable failure (each retry counts once). */
  retries: number
  /** Remote segments dropped by TTL, remote objects deleted, and deletions that failed. */
  segmentsExpired: number
  objectsDeleted: number
  deleteErrors: number
  /** Unreferenced objects (crash leftovers) found and deleted by the orphan sweep. */
  orphansDeleted: number
  /** Local segments deleted because they are in remote storage. */
  localSegmentsDeleted: number
  /** Active segments rolled early for `table.datalake.freshness`. */
  freshnessRolls: number
  /** Reads served from remote segments, their bytes, and failed reads. */
  remoteReads: number
  remoteReadBytes: number
  remoteReadErrors: number
}

export interface RemoteLogStatsSnapshot extends Readonly<RemoteLogCounters> {
  /** Message of the most recent failure, null when none happened yet. */
  readonly lastError: string | null
}

export class RemoteLogStats {
  readonly counters: RemoteLogCounters = {
    runs: 0,
    runErrors: 0,
    segmentsUploaded: 0,
    bytesUploaded: 0,
    uploadErrors: 0,
    commits: 0,
    commitConflicts: 0,
    fenced: 0,
    retries: 0,
    segmentsExpired: 0,
    objectsDeleted: 0,
    deleteErrors: 0,
    orphansDeleted: 0,
    localSegmentsDeleted: 0,
    freshnessRolls: 0,
    remoteReads: 0,
    remoteReadBytes: 0,
    remoteReadErrors: 0,
  }
  lastError: string | null = null

  add(counter: keyof RemoteLogCounters, n = 1): void {
    this.counters[counter] += n
  }

  error(counter: keyof RemoteLogCounters, e: unknown): void {
    this.counters[counter]++
    this.lastError = e instanceof Error ? e.message : String(e)
  }

  snapshot(): RemoteLogStatsSnapshot {
    return { ...this.counters, lastError: this.lastError }
  }
}
