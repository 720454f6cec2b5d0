import type { Admin, LogScanner, Table } from '@sluice/client'
import type { TablePath } from '@sluice/core/metadata'
import type { DataType } from '@sluice/core/types'
import { type Canonical, toCanonical } from '../canonical.js'
import { datasetValue } from '../dataset.js'
import type { BucketSummary, VerifyResult } from './driver.js'

const STALL_TIMEOUT_MS = 60_000
const MAX_MISMATCHES = 5

type OnRecord = (bucket: number, offset: number, row: Canonical[]) => void

/**
 * Our SDK's side of `verify` (the same checks as the Java driver's LogVerify): every dataset row
 * exactly once with exactly its values, dense offsets per bucket, then a projected read matched to
 * the full read by bucket and offset.
 */
export class SdkVerify {
  readonly mismatches: string[] = []
  readonly #ids: number[][] = []
  #earliest = new Map<number, number>()
  #latest = new Map<number, number>()
  #distinct = 0

  constructor(
    private readonly table: Table,
    private readonly start: number,
    private readonly n: number,
    private readonly salt: number,
  ) {}

  mismatch(message: string): void {
    if (this.mismatches.length < MAX_MISMATCHES) this.mismatches.push(message)
  }

  async run(admin: Admin, path: TablePath, project?: readonly string[]): Promise<VerifyResult> {
    const info = this.table.getTableInfo()
    const buckets = Array.from({ length: info.numBuckets }, (_, b) => b)
    this.#earliest = await admin.listOffsets(path, buckets, 'earliest')
    this.#latest = await admin.listOffsets(path, buckets, 'latest')
    const summaries = await this.#readAll()
    const rows = Object.values(summaries).reduce((a, s) => a + s.records, 0)
    const result: VerifyResult = {
      ok: false,
      rows: this.#distinct,
      buckets: summaries,
      mismatches: this.mismatches,
    }
    if (this.#distinct !== this.n)
      this.mismatch(`read ${this.#distinct} distinct rows (${rows} records), expected ${this.n}`)
    if (project === undefined || this.mismatches.length > 0)
      return { ...result, ok: this.mismatches.length === 0 }
    const projectedRows = await this.#readProjected(project)
    return { ...result, projectedRows, ok: this.mismatches.length === 0 }
  }

  async #readAll(): Promise<Record<string, BucketSummary>> {
    const names = this.table.getTableInfo().rowType.fields.map(f => f.name)
    const idIndex = names.indexOf('id')
    const seen = new Uint8Array(this.n)
    const hashes = new Map<number, number>()
    for (const [b, earliest] of this.#earliest) this.#ids[b] = new Array(this.#latest.get(b)! - earliest)
    const next = await this.#scan(
      this.table.newScan().createLogScanner(),
      this.#types(),
      (b, offset, row) => {
        const id = Number(row[idIndex])
        const where = `bucket ${b} offset ${offset}`
        if (!(id >= this.start && id < this.start + this.n))
          return this.mismatch(`${where}: id ${id} outside the written range`)
        if (seen[id - this.start]) this.mismatch(`${where}: id ${id} read twice`)
        else this.#distinct++
        seen[id - this.start] = 1
        this.#compare(row, names, id, where)
        const index = offset - this.#earliest.get(b)!
        if (index >= 0 && index < this.#ids[b].length) this.#ids[b][index] = id
        hashes.set(b, (Math.imul(hashes.get(b) ?? 0, 31) + id) >>> 0)
      },
    )
    const out: Record<string, BucketSummary> = {}
    for (const [b, earliest] of this.#earliest) {
      const latest = this.#latest.get(b)!
      out[String(b)] = { earliest, latest, records: next.get(b)! - earliest, idHash: hashes.get(b) ?? 0 }
    }
    return out
  }

  async #readProjected(project: readonly string[]): Promise<number> {
    let count = 0
    const scanner = this.table.newScan().project(project).createLogScanner()
    await this.#scan(scanner, this.#types(project), (b, offset, row) => {
      const where = `projected bucket ${b} offset ${offset}`
      const id = this.#ids[b]?.[offset - this.#earliest.get(b)!]
      if (id === undefined) return this.mismatch(`${where}: not in the full read`)
      if (row.length !== project.length)
        this.mismatch(`${where}: ${row.length} columns, expected ${project.length}`)
      this.#compare(row, project, id, where)
      count++
    })
    return count
  }

  #compare(row: readonly Canonical[], names: readonly string[], id: number, where: string): void {
    names.forEach((name, k) => {
      const expected = datasetValue(id, this.salt, name)
      if (expected !== row[k])
        this.mismatch(`${where} (id ${id}) column ${name}: expected ${expected}, got ${row[k]}`)
    })
  }

  /** Column types of the table, or of the projected columns in projection order. */
  #types(project?: readonly string[]): DataType[] {
    const fields = this.table.getTableInfo().rowType.fields
    if (project === undefined) return fields.map(f => f.type)
    return project.map(name => fields.find(f => f.name === name)!.type)
  }

  async #scan(scanner: LogScanner, types: DataType[], onRecord: OnRecord): Promise<Map<number, number>> {
    const what = types.length === this.table.getTableInfo().rowType.fields.length ? 'full' : 'projected'
    const next = new Map(this.#earliest)
    try {
      for (const b of next.keys()) scanner.subscribeFromBeginning(b)
      let lastProgress = Date.now()
      const done = () => [...next].every(([b, o]) => o >= this.#latest.get(b)!)
      while (!done() && this.mismatches.length < MAX_MISMATCHES) {
        const records = await scanner.poll(1000)
        if (!records.isEmpty()) lastProgress = Date.now()
        else if (Date.now() - lastProgress > STALL_TIMEOUT_MS) {
          this.mismatch(
            `${what} read: no records for ${STALL_TIMEOUT_MS} ms; positions ${JSON.stringify([...next])}`,
          )
          break
        }
        for (const tb of records.buckets()) {
          for (const r of records.records(tb)) {
            const b = tb.bucket
            if (r.offset !== next.get(b))
              this.mismatch(`${what} bucket ${b}: offset ${r.offset}, expected ${next.get(b)}`)
            next.set(b, r.offset + 1)
            onRecord(
              b,
              r.offset,
              r.row.map((v, k) => toCanonical(v, types[k])),
            )
          }
        }
      }
    } finally {
      scanner.close()
    }
    return next
  }
}
