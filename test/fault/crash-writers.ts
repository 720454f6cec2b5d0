import type { AppendWriter, Connection, UpsertWriter } from '@sluice/client'
import { FlussError } from '@sluice/core/errors'
import type { TablePath } from '@sluice/core/metadata'
import { sleep } from '@sluice/core/util'
import type { LocalCluster } from '../harness/index.js'
import { connect } from '../it/support/cluster.js'
import type { Prng } from '../it/support/prng.js'
import type { AppendLedger, KeyLedger } from './crash-ledgers.js'

/** Writes are never retried: one that was in flight at a crash either landed or failed. */
const WRITER_CONFIG = {
  'client.writer.acks': 'all',
  'client.writer.enable-idempotence': 'false',
  'client.writer.retries': '0',
  'client.writer.batch-timeout': '5ms',
  'client.request-timeout': '10s',
}
/** Writes per pass of a loop; a pass then waits PAUSE_MS (about 10,000 writes/s at most per table). */
const WRITES_PER_PASS = 50
const PAUSE_MS = 5
/** Unacknowledged writes per table at most. */
const MAX_IN_FLIGHT = 1000
/** Longest wait, after a stop, for the writes in flight to be acknowledged or to fail. */
const SETTLE_TIMEOUT_MS = 20_000

export interface CrashWriterTargets {
  readonly logTable: TablePath
  readonly pkTable: TablePath
  readonly logLedger: AppendLedger
  readonly keyLedger: KeyLedger
  /** Keys of the primary-key table are 0..keys-1. */
  readonly keys: number
  /** Share of writes to the primary-key table that are deletes (where a delete is allowed). */
  readonly deleteShare: number
  readonly prng: Prng
}

/**
 * One round of continuous writes to a log table (rows (id, payload)) and a primary-key table (rows
 * (id, seq)) through a fresh connection, every write and acknowledgement recorded in the ledgers.
 * `stop()` aborts the writers (their server may be dead) and waits, bounded, for what was in flight.
 */
export class CrashRoundWriters {
  readonly #targets: CrashWriterTargets
  readonly #pending = new Set<Promise<unknown>>()
  #stopped = false
  #loops: Promise<void>[] = []
  #connection: Connection | undefined
  #writers: (AppendWriter | UpsertWriter)[] = []

  private constructor(targets: CrashWriterTargets) {
    this.#targets = targets
  }

  static async start(cluster: LocalCluster, targets: CrashWriterTargets, seq: { next: number }) {
    const round = new CrashRoundWriters(targets)
    const connection = await connect(cluster, WRITER_CONFIG)
    round.#connection = connection
    const appender = (await connection.getTable(targets.logTable)).newAppend().createWriter()
    const upserter = (await connection.getTable(targets.pkTable)).newUpsert().createWriter()
    round.#writers = [appender, upserter]
    round.#loops = [round.#appendLoop(appender), round.#upsertLoop(upserter, seq)]
    return round
  }

  async stop(): Promise<void> {
    this.#stopped = true
    await Promise.all(this.#loops)
    const error = new FlussError('NETWORK_EXCEPTION', 'the round of writes ended')
    for (const w of this.#writers) w.abort(error)
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      Promise.allSettled([...this.#pending]),
      new Promise(resolve => {
        timer = setTimeout(resolve, SETTLE_TIMEOUT_MS)
      }),
    ])
    clearTimeout(timer)
    await this.#connection?.close().catch(() => undefined)
  }

  #track(p: Promise<unknown>): void {
    this.#pending.add(p)
    void p.finally(() => this.#pending.delete(p))
  }

  async #appendLoop(writer: AppendWriter): Promise<void> {
    const ledger = this.#targets.logLedger
    while (!this.#stopped) {
      for (let k = 0; k < WRITES_PER_PASS && !this.#stopped; k++) {
        const id = ledger.nextId()
        let result: Promise<{ bucket: number; offset: number }>
        try {
          result = writer.appendWithResult([BigInt(id), `payload-${id}-${'x'.repeat(64)}`])
        } catch {
          return
        }
        this.#track(
          result.then(
            r => ledger.acked.set(id, { bucket: r.bucket, offset: r.offset }),
            () => undefined,
          ),
        )
      }
      await sleep(PAUSE_MS)
      while (this.#pending.size > 2 * MAX_IN_FLIGHT && !this.#stopped) await sleep(PAUSE_MS)
    }
  }

  async #upsertLoop(writer: UpsertWriter, seq: { next: number }): Promise<void> {
    const { keyLedger: ledger, keys, deleteShare, prng } = this.#targets
    while (!this.#stopped) {
      for (let k = 0; k < WRITES_PER_PASS && !this.#stopped; k++) {
        const id = prng.int(0, keys - 1)
        const kind = ledger.canDelete(id) && prng.next() < deleteShare ? 'delete' : 'upsert'
        const s = seq.next++
        let result: Promise<{ bucket: number; logEndOffset: number }>
        try {
          result =
            kind === 'upsert'
              ? writer.upsertWithResult([BigInt(id), BigInt(s)])
              : writer.deleteWithResult([BigInt(id), null])
        } catch {
          return
        }
        const write = ledger.send(id, s, kind)
        this.#track(
          result.then(
            r => ledger.ack(id, write, { bucket: r.bucket, logEndOffset: r.logEndOffset }),
            () => ledger.fail(id),
          ),
        )
      }
      await sleep(PAUSE_MS)
      while (this.#pending.size > 2 * MAX_IN_FLIGHT && !this.#stopped) await sleep(PAUSE_MS)
    }
  }
}
