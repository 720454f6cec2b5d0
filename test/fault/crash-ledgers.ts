import type { BucketRecords } from '../it/support/scan.js'

/**
 * What writers sent to a log table and to a primary-key table across several crashes, and what was
 * acknowledged, with checks of what is read back afterwards. Writes are never retried (a write in
 * flight at a crash either landed or not), so nothing may appear twice, every acknowledged write
 * must appear exactly where it was acknowledged, and order is the order of sending.
 */

/** A log table with rows (id, payload): ids are sent ascending, each once. */
export class AppendLedger {
  readonly acked = new Map<number, { readonly bucket: number; readonly offset: number }>()
  #next = 0

  get sent(): number {
    return this.#next
  }

  nextId(): number {
    return this.#next++
  }

  /**
   * Problems of a full read from the earliest offset (rows with the id in column 0), or []:
   * dense offsets from 0, ids ascending in every bucket and unique, each one sent, and every
   * acknowledged id at the bucket and offset its acknowledgement named.
   */
  check(records: BucketRecords): string[] {
    const problems: string[] = []
    const found = new Map<number, { bucket: number; offset: number }>()
    for (const [bucket, list] of records) {
      let previous = -1
      list.forEach((r, k) => {
        const id = Number(r.row[0])
        if (r.offset !== k) problems.push(`bucket ${bucket}: record ${k} has offset ${r.offset}`)
        if (id <= previous)
          problems.push(`bucket ${bucket}: id ${id} at offset ${r.offset} after id ${previous}`)
        if (id >= this.#next) problems.push(`bucket ${bucket}: id ${id} was never sent`)
        if (found.has(id)) problems.push(`id ${id} read twice`)
        found.set(id, { bucket, offset: r.offset })
        previous = id
      })
    }
    for (const [id, at] of this.acked) {
      const got = found.get(id)
      if (got?.bucket !== at.bucket || got.offset !== at.offset)
        problems.push(
          `acknowledged id ${id} (bucket ${at.bucket} offset ${at.offset}) read at ${got ? `bucket ${got.bucket} offset ${got.offset}` : 'nowhere'}`,
        )
    }
    return problems.slice(0, 20)
  }
}

interface KeyWrite {
  readonly seq: number
  readonly kind: 'upsert' | 'delete'
  acked: { readonly bucket: number; readonly logEndOffset: number } | null
}

/** A changelog record of one key: change type (+I, -U, +U, -D), the seq of its row, where it is. */
export interface KeyRecord {
  readonly change: string
  readonly seq: number
  readonly bucket: number
  readonly offset: number
}

/**
 * A primary-key table with rows (id, seq), seq unique per write. A delete is only sent for a key
 * whose every write was acknowledged and whose last one was an upsert, with nothing in flight: its
 * changelog record (-D of that upsert's row) is then unambiguous. Keys with a write lost in a crash
 * (uncertain) only get upserts, whose records name their own seq.
 */
export class KeyLedger {
  readonly #writes = new Map<number, KeyWrite[]>()
  readonly #inFlight = new Map<number, number>()
  readonly #uncertain = new Set<number>()
  ackCount = 0

  canDelete(id: number): boolean {
    const last = this.#writes.get(id)?.at(-1)
    return (
      last?.kind === 'upsert' &&
      last.acked !== null &&
      !this.#uncertain.has(id) &&
      (this.#inFlight.get(id) ?? 0) === 0
    )
  }

  send(id: number, seq: number, kind: 'upsert' | 'delete'): KeyWrite {
    const write: KeyWrite = { seq, kind, acked: null }
    const writes = this.#writes.get(id) ?? []
    this.#writes.set(id, writes)
    writes.push(write)
    this.#inFlight.set(id, (this.#inFlight.get(id) ?? 0) + 1)
    return write
  }

  ack(id: number, write: KeyWrite, at: { bucket: number; logEndOffset: number }): void {
    write.acked = at
    this.ackCount++
    this.#inFlight.set(id, (this.#inFlight.get(id) ?? 1) - 1)
  }

  fail(id: number): void {
    this.#uncertain.add(id)
    this.#inFlight.set(id, (this.#inFlight.get(id) ?? 1) - 1)
  }

  keys(): number[] {
    return [...this.#writes.keys()].sort((a, b) => a - b)
  }

  /**
   * Checks one key: its changelog must be what a subsequence of its writes produces, holding every
   * acknowledged write (below the log end offset its acknowledgement named) and nothing else, each
   * once, in order; the looked-up seq (null: absent) must be the state after it.
   */
  check(id: number, changelog: readonly KeyRecord[], lookedUp: number | null): string[] {
    const problems: string[] = []
    let current: number | null = null
    let next = 0
    for (const w of this.#writes.get(id) ?? []) {
      const expected: [string, number][] =
        w.kind === 'delete'
          ? current === null
            ? []
            : [['-D', current]]
          : current === null
            ? [['+I', w.seq]]
            : [
                ['-U', current],
                ['+U', w.seq],
              ]
      const records = changelog.slice(next, next + expected.length)
      const applied =
        expected.length > 0 &&
        records.length === expected.length &&
        expected.every(([change, seq], i) => records[i]?.change === change && records[i]?.seq === seq)
      if (applied) {
        next += expected.length
        current = w.kind === 'upsert' ? w.seq : null
        const last = records.at(-1) as KeyRecord
        if (w.acked !== null && (last.bucket !== w.acked.bucket || last.offset >= w.acked.logEndOffset))
          problems.push(
            `key ${id}: write ${w.seq} at offset ${last.offset}, acknowledged below ${w.acked.logEndOffset}`,
          )
      } else if (w.acked !== null) {
        problems.push(`key ${id}: acknowledged ${w.kind} ${w.seq} is not in the changelog`)
      }
    }
    if (next < changelog.length) {
      const r = changelog[next] as KeyRecord
      problems.push(`key ${id}: unexplained changelog record ${r.change}${r.seq} at offset ${r.offset}`)
    }
    if (lookedUp !== current)
      problems.push(`key ${id}: looked up ${lookedUp}, the changelog implies ${current}`)
    return problems
  }
}
