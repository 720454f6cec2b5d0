/**
 * What a test sent to a primary-key table with rows (id, seq), key by key, and what was
 * acknowledged, so that the state after a crash can be checked against it: every write has a
 * unique seq, and a delete is only sent for a key whose last sent write was an upsert (so that
 * every write changes the key and appends changelog records; no empty batches).
 */
export type KvWriteKind = 'upsert' | 'delete'

interface KvWrite {
  readonly seq: number
  readonly kind: KvWriteKind
}

/** Where an acknowledged write landed: its bucket and the log end offset after its batch. */
export interface KvAck {
  readonly bucket: number
  readonly logEndOffset: number
}

/** A changelog record of one key: its offset, change type and the seq of its row. */
export interface KeyChange {
  readonly bucket: number
  readonly offset: number
  readonly change: string
  readonly seq: number
}

/** The changelog records a run of writes produces from an absent key (`-U` carries the old seq). */
function emissions(writes: readonly KvWrite[]): {
  changes: { change: string; seq: number }[]
  ends: number[]
} {
  const changes: { change: string; seq: number }[] = []
  const ends: number[] = []
  let current: number | null = null
  for (const w of writes) {
    if (w.kind === 'upsert') {
      if (current === null) changes.push({ change: '+I', seq: w.seq })
      else changes.push({ change: '-U', seq: current }, { change: '+U', seq: w.seq })
      current = w.seq
    } else if (current !== null) {
      changes.push({ change: '-D', seq: current })
      current = null
    }
    ends.push(changes.length)
  }
  return { changes, ends }
}

export class KvHistory {
  readonly #sent = new Map<number, KvWrite[]>()
  readonly #acked = new Map<number, Map<number, KvAck>>()
  ackCount = 0

  /** Records a write about to be sent; returns its index in the key's history. */
  send(id: number, seq: number, kind: KvWriteKind): number {
    const writes = this.#sent.get(id) ?? []
    this.#sent.set(id, writes)
    writes.push({ seq, kind })
    return writes.length - 1
  }

  ack(id: number, index: number, where: KvAck): void {
    const acks = this.#acked.get(id) ?? new Map<number, KvAck>()
    this.#acked.set(id, acks)
    acks.set(index, where)
    this.ackCount++
  }

  /** Whether the key's last sent write was an upsert (a delete of it would change something). */
  present(id: number): boolean {
    return this.#sent.get(id)?.at(-1)?.kind === 'upsert'
  }

  debug(id: number) {
    return { sent: this.#sent.get(id), acked: [...(this.#acked.get(id) ?? new Map())] }
  }

  keys(): number[] {
    return [...this.#sent.keys()].sort((a, b) => a - b)
  }

  /**
   * Checks one key: its changelog must be what the first p writes produce, for a p that includes
   * every acknowledged write (a prefix: later writes may be lost, never one in the middle), each
   * acknowledged write's records must lie below the log end offset its acknowledgement reported,
   * and the looked-up row (null: absent) must be the state after those p writes. Returns the
   * problems found.
   */
  checkKey(id: number, lookedUp: number | null, changelog: readonly KeyChange[]): string[] {
    const writes = this.#sent.get(id) ?? []
    const acks = this.#acked.get(id) ?? new Map<number, KvAck>()
    const { changes, ends } = emissions(writes)
    const lastAcked = Math.max(-1, ...acks.keys())
    const problems: string[] = []
    changelog.forEach((c, i) => {
      const e = changes[i]
      if (e === undefined || e.change !== c.change || e.seq !== c.seq)
        problems.push(
          `key ${id}: changelog record ${i} (offset ${c.offset}) is ${c.change}${c.seq}, expected ${e ? `${e.change}${e.seq}` : 'nothing'}`,
        )
    })
    if (new Set(changelog.map(c => c.bucket)).size > 1)
      problems.push(`key ${id}: changelog in several buckets`)
    const applied = changelog.length === 0 ? -1 : ends.indexOf(changelog.length)
    if (changelog.length > 0 && applied < 0) problems.push(`key ${id}: changelog ends inside a write`)
    if (applied < lastAcked)
      problems.push(
        `key ${id}: changelog holds ${applied + 1} writes, but write ${lastAcked} was acknowledged`,
      )
    for (const [index, ack] of acks) {
      const last = changelog[(ends[index] ?? 0) - 1]
      if (last !== undefined && (last.bucket !== ack.bucket || last.offset >= ack.logEndOffset))
        problems.push(
          `key ${id}: write ${index} at bucket ${last.bucket} offset ${last.offset}, acknowledged as below ${ack.logEndOffset} in bucket ${ack.bucket}`,
        )
    }
    const state = applied < 0 || writes[applied]?.kind === 'delete' ? null : (writes[applied]?.seq ?? null)
    if (problems.length === 0 && lookedUp !== state)
      problems.push(
        `key ${id}: looked up ${lookedUp ?? 'nothing'}, the changelog implies ${state ?? 'nothing'}`,
      )
    return problems
  }
}
