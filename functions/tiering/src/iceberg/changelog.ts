import { FlussError } from '@sluice/core/errors'
import { ChangeType } from '@sluice/core/record'
import type { Row } from '@sluice/core/row'
import { keyString } from '@sluice/lake/iceberg'
import type { LakeRecord } from '@sluice/lake/parquet'

/**
 * Merge-on-read encoding of one round's changelog of a primary-key bucket. Per key, only the first
 * and the last change matter:
 * - the key needs an equality delete when it may exist in an earlier snapshot: its first change
 *   is -U or -D (a +I first means the key did not exist), or the changelog carries no
 *   before-images (`fullChangelog` false, Fluss's WAL image mode), where every touched key does;
 * - the key gets a data row when its last change is +I or +U, carrying that change's offset and
 *   timestamp.
 * The delete (sequence number N) removes only rows of earlier commits, so a key's new row written
 * in the same commit survives.
 */

export interface ChangeRecord extends LakeRecord {
  readonly changeType: ChangeType
}

export interface CollapsedChangelog {
  /** Final images, in offset order. */
  readonly upserts: readonly LakeRecord[]
  /** Primary-key values (in key order) of the keys to delete from earlier snapshots. */
  readonly deleteKeys: readonly Row[]
}

interface KeyState {
  first: ChangeType
  last: ChangeRecord
  key: Row
}

export function collapseChangelog(
  changes: Iterable<ChangeRecord>,
  primaryKeyIndexes: readonly number[],
  fullChangelog = true,
): CollapsedChangelog {
  const keys = new Map<string, KeyState>()
  for (const c of changes) {
    if (c.changeType === ChangeType.APPEND_ONLY) {
      throw new FlussError('INVALID_REQUEST', 'append-only records in a primary-key changelog')
    }
    const key = primaryKeyIndexes.map(i => c.row[i])
    const id = keyString(key)
    const state = keys.get(id)
    if (state === undefined) keys.set(id, { first: c.changeType, last: c, key })
    else state.last = c
  }
  const upserts: LakeRecord[] = []
  const deleteKeys: Row[] = []
  for (const s of keys.values()) {
    const mayExist = !fullChangelog || s.first === ChangeType.UPDATE_BEFORE || s.first === ChangeType.DELETE
    if (mayExist) deleteKeys.push(s.key)
    const t = s.last.changeType
    if (t === ChangeType.INSERT || t === ChangeType.UPDATE_AFTER) {
      upserts.push({ row: s.last.row, offset: s.last.offset, timestampMs: s.last.timestampMs })
    }
  }
  upserts.sort((a, b) => (BigInt(a.offset) < BigInt(b.offset) ? -1 : 1))
  return { upserts, deleteKeys }
}
