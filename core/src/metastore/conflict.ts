import { FlussError } from '../errors/index.js'
import type { VersionedItem, WriteCondition } from './metastore.js'

/**
 * A lost conditional write: `FlussError('METASTORE_CONFLICT')` plus the item as it was found
 * (`undefined` when it did not exist). On real DynamoDB the item comes with the failure itself; on
 * emulators that do not return it, the adapter re-reads it right after, so it may be newer still.
 */
export type MetaStoreConflictError = FlussError & { readonly current: VersionedItem | undefined }

export function metaStoreConflict(
  pk: string,
  sk: string,
  condition: WriteCondition,
  current: VersionedItem | undefined,
): MetaStoreConflictError {
  const expected = describeCondition(condition)
  const found = current === undefined ? 'no item' : `version ${current.version}`
  const err = new FlussError(
    'METASTORE_CONFLICT',
    `conditional write to ${pk}/${sk} lost: expected ${expected}, found ${found}`,
  )
  return Object.assign(err, { current })
}

export function isMetaStoreConflict(e: unknown): e is MetaStoreConflictError {
  return e instanceof FlussError && e.is('METASTORE_CONFLICT') && 'current' in e
}

function describeCondition(c: WriteCondition): string {
  const parts = [c.version === 'absent' ? 'no item' : `version ${c.version}`]
  for (const a of c.attributes ?? []) {
    parts.push(a.op === 'absent' ? `no ${a.field}` : `${a.field} ${a.op} ${JSON.stringify(a.value)}`)
  }
  return parts.join(' and ')
}
