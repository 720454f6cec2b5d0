import { FlussError } from '@sluice/core/errors'
import { ChangeType } from '@sluice/core/record'
import type { Row } from '@sluice/core/row'
import { keyString } from '@sluice/lake/iceberg'

/** One row of a union read: the table's columns and where the row sits in the log. */
export interface UnionRecord {
  readonly row: Row
  readonly bucket: number
  /** Log offset of the row (for primary-key tables: of the change that produced this image). */
  readonly offset: number
  /** Commit time (ms) of the row's log batch. */
  readonly timestamp: number
  /** Whether the row came from the lake snapshot or from the log after it. */
  readonly source: 'lake' | 'log'
}

/** A change read from the log after the lake snapshot. */
export interface LogChange extends UnionRecord {
  readonly changeType: ChangeType
}

/** A log change as a union record. */
export function unionRecordOf(c: LogChange): UnionRecord {
  return { row: c.row, bucket: c.bucket, offset: c.offset, timestamp: c.timestamp, source: c.source }
}

/**
 * The primary-key merge of a union read: the log changes after the lake snapshot, collapsed per
 * key (the newest change wins; -D removes the key, -U is superseded by its +U). Lake rows whose key
 * the log touched are dropped; the surviving log images are emitted at the end. At most
 * `maxKeys` keys are held; more is INVALID_REQUEST (the lake is too far behind for a union read
 * with this bound).
 */
export class PrimaryKeyMerge {
  readonly #latest = new Map<string, LogChange | null>()

  constructor(
    private readonly primaryKeyIndexes: readonly number[],
    private readonly maxKeys: number,
  ) {}

  private key(row: Row): string {
    return keyString(this.primaryKeyIndexes.map(i => row[i]))
  }

  /** Adds log changes of one bucket, in offset order. */
  addChanges(changes: Iterable<LogChange>): void {
    for (const c of changes) {
      if (c.changeType === ChangeType.UPDATE_BEFORE) continue
      const k = this.key(c.row)
      if (!this.#latest.has(k) && this.#latest.size >= this.maxKeys) {
        throw new FlussError(
          'INVALID_REQUEST',
          `union read: the log after the lake snapshot changes more than ${this.maxKeys} keys; raise the bound or wait for tiering`,
        )
      }
      this.#latest.set(k, c.changeType === ChangeType.DELETE ? null : c)
    }
  }

  /** Lake rows whose key the log did not change. */
  filterLake(rows: readonly UnionRecord[]): UnionRecord[] {
    return rows.filter(r => !this.#latest.has(this.key(r.row)))
  }

  /** The newest image of every key the log changed and did not delete. */
  *logImages(): Generator<UnionRecord> {
    for (const c of this.#latest.values()) {
      if (c !== null) yield unionRecordOf(c)
    }
  }
}
