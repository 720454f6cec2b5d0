/**
 * What a test sent to a primary-key table with rows (id, seq), key by key, and what was
 * acknowledged or failed, so that the state after a crash can be checked against it: every write
 * has a unique seq, and a delete is only sent for a key whose last sent write was an upsert.
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

/** The changelog records one write appends when the key holds `current` (null: absent). */
function emission(write: KvWrite, current: number | null): { change: string; seq: number }[] {
  if (write.kind === 'delete') return current === null ? [] : [{ change: '-D', seq: current }]
  if (current === null) return [{ change: '+I', seq: write.seq }]
  return [
    { change: '-U', seq: current },
    { change: '+U', seq: write.seq },
  ]
}

/**
 * Whether the writes explain a changelog: the state the applied writes leave (null: absent), or,
 * when no choice of writes does, how many records of the changelog some choice explained.
 */
type Explanation = { readonly state: number | null } | { readonly explained: number }

export class KvHistory {
  readonly #sent = new Map<number, KvWrite[]>()
  readonly #acked = new Map<number, Map<number, KvAck>>()
  readonly #failed = new Map<number, Set<number>>()
  ackCount = 0
  failCount = 0

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

  /** Records a write that failed: it may still have been applied (a lost answer), or not. */
  fail(id: number, index: number): void {
    const failed = this.#failed.get(id) ?? new Set<number>()
    this.#failed.set(id, failed)
    failed.add(index)
    this.failCount++
  }

  /** Whether the key's last sent write was an upsert (a delete of it would change something). */
  present(id: number): boolean {
    return this.#sent.get(id)?.at(-1)?.kind === 'upsert'
  }

  keys(): number[] {
    return [...this.#sent.keys()].sort((a, b) => a - b)
  }

  /**
   * Checks one key. A writer without idempotence and without retries applies each write at most
   * once and in order, but a write that failed or was never answered may be missing anywhere, not
   * only at the end (a batch refused while the leadership moves, and the next batches taken). So the
   * changelog must be what some subsequence of the writes produces (each write's records whole and
   * in order) that holds every acknowledged write, each acknowledged write's records must lie in
   * its bucket below the log end offset its acknowledgement reported, and the looked-up row (null:
   * absent) must be the state that subsequence leaves. Returns the problems found.
   */
  checkKey(id: number, lookedUp: number | null, changelog: readonly KeyChange[]): string[] {
    if (new Set(changelog.map(c => c.bucket)).size > 1) return [`key ${id}: changelog in several buckets`]
    if ('state' in this.#explain(id, changelog, lookedUp)) return []
    const any = this.#explain(id, changelog, undefined)
    if ('state' in any) {
      return [
        `key ${id}: looked up ${lookedUp ?? 'nothing'}, but the changelog implies ${any.state ?? 'nothing'} ` +
          `(writes ${this.#describe(id)})`,
      ]
    }
    const records = changelog.map(c => `${c.change}${c.seq}@${c.offset}`).join(' ')
    return [
      `key ${id}: its changelog ${records} is not what any subsequence of its writes holding every ` +
        `acknowledged one produces (at most its first ${any.explained} records are; writes ${this.#describe(id)})`,
    ]
  }

  /**
   * Searches the subsequences of the key's writes (depth first, each position, changelog position
   * and state visited once) for one that produces exactly `changelog` and keeps every acknowledged
   * write where its acknowledgement said; with `lookedUp` given, it must also leave that state.
   */
  #explain(id: number, changelog: readonly KeyChange[], lookedUp: number | null | undefined): Explanation {
    const writes = this.#sent.get(id) ?? []
    const acks = this.#acked.get(id) ?? new Map<number, KvAck>()
    const dead = new Set<string>()
    let explained = 0
    const visit = (i: number, j: number, state: number | null): number | null | undefined => {
      explained = Math.max(explained, j)
      if (i === writes.length) {
        if (j !== changelog.length || (lookedUp !== undefined && state !== lookedUp)) return undefined
        return state
      }
      const memo = `${i}:${j}:${state}`
      if (dead.has(memo)) return undefined
      const ack = acks.get(i)
      const records = emission(writes[i], state)
      const matches =
        j + records.length <= changelog.length &&
        records.every((r, k) => changelog[j + k].change === r.change && changelog[j + k].seq === r.seq)
      const last = changelog[j + records.length - 1]
      const landed =
        ack === undefined ||
        records.length === 0 ||
        (last.bucket === ack.bucket && last.offset < ack.logEndOffset)
      if (matches && landed) {
        const next = writes[i].kind === 'upsert' ? writes[i].seq : null
        const found = visit(i + 1, j + records.length, next)
        if (found !== undefined) return found
      }
      if (ack === undefined) {
        const found = visit(i + 1, j, state)
        if (found !== undefined) return found
      }
      dead.add(memo)
      return undefined
    }
    const state = visit(0, 0, null)
    return state === undefined ? { explained } : { state }
  }

  /** The key's writes for messages: `+seq` upserts, `-` deletes; `*` acknowledged, `!` failed. */
  #describe(id: number): string {
    const acks = this.#acked.get(id)
    const failed = this.#failed.get(id)
    return (this.#sent.get(id) ?? [])
      .map((w, i) => {
        const mark = acks?.has(i) ? '*' : failed?.has(i) ? '!' : ''
        return `${w.kind === 'upsert' ? `+${w.seq}` : '-'}${mark}`
      })
      .join(' ')
  }
}
