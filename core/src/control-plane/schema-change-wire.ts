import { FlussError } from '../errors/index.js'
import {
  COLUMN_POSITION_CODES,
  type ColumnPosition,
  columnPositionOf,
  orderAsSent,
  type SchemaChange,
} from '../metadata/index.js'
import type { AlterTableRequest, AlterTableRequestInit } from '../rpc/index.js'
import { dataTypeFromJson, dataTypeToJson } from '../types/index.js'

/**
 * ALTER_TABLE's column changes on the wire (`PbAddColumn`, `PbDropColumn`, `PbRenameColumn`,
 * `PbModifyColumn`, as Fluss's `ServerRpcMessageUtils.toAlterTableSchemaChanges` reads them, with
 * Sluice's fields for defaults and dropped comments) and back.
 */

const invalidAlter = (message: string) => new FlussError('INVALID_ALTER_TABLE_EXCEPTION', message)

function position(code: number): ColumnPosition {
  const p = columnPositionOf(code)
  if (p === undefined) throw invalidAlter(`Unsupported column position type ${code}`)
  return p
}

/** The request's column changes in the order the server applies them (add, drop, rename, modify). */
export function schemaChangesOf(request: AlterTableRequest): SchemaChange[] {
  const type = (json: Uint8Array) => dataTypeFromJson(json, 'INVALID_ALTER_TABLE_EXCEPTION')
  return [
    ...request.addColumns.map(
      (c): SchemaChange => ({
        kind: 'add',
        name: c.columnName,
        dataType: type(c.dataTypeJson),
        position: position(c.columnPositionType),
        ...(c.comment === null ? {} : { comment: c.comment }),
        ...(c.defaultValue === null ? {} : { defaultValue: c.defaultValue }),
      }),
    ),
    ...request.dropColumns.map((c): SchemaChange => ({ kind: 'drop', name: c.columnName })),
    ...request.renameColumns.map(
      (c): SchemaChange => ({ kind: 'rename', name: c.oldColumnName, newName: c.newColumnName }),
    ),
    ...request.modifyColumns.map((c): SchemaChange => {
      if (c.defaultValue !== null && c.dropDefault === true)
        throw invalidAlter(`Column ${c.columnName}: a default cannot be set and dropped at once.`)
      if (c.comment !== null && c.dropComment === true)
        throw invalidAlter(`Column ${c.columnName}: a comment cannot be set and dropped at once.`)
      return {
        kind: 'modify',
        name: c.columnName,
        ...(c.dataTypeJson === null ? {} : { dataType: type(c.dataTypeJson) }),
        ...(c.comment !== null ? { comment: c.comment } : c.dropComment === true ? { comment: null } : {}),
        ...(c.defaultValue !== null
          ? { defaultValue: c.defaultValue }
          : c.dropDefault === true
            ? { defaultValue: null }
            : {}),
        ...(c.columnPositionType === null ? {} : { position: position(c.columnPositionType) }),
      }
    }),
  ]
}

/** The request fields carrying `changes` (grouped by kind, the order the server applies them in). */
export function schemaChangeFields(
  changes: readonly SchemaChange[],
): Pick<AlterTableRequestInit, 'addColumns' | 'dropColumns' | 'renameColumns' | 'modifyColumns'> {
  const out = {
    addColumns: [] as NonNullable<AlterTableRequestInit['addColumns']>,
    dropColumns: [] as NonNullable<AlterTableRequestInit['dropColumns']>,
    renameColumns: [] as NonNullable<AlterTableRequestInit['renameColumns']>,
    modifyColumns: [] as NonNullable<AlterTableRequestInit['modifyColumns']>,
  }
  for (const c of orderAsSent(changes)) {
    switch (c.kind) {
      case 'add':
        out.addColumns.push({
          columnName: c.name,
          dataTypeJson: Buffer.from(dataTypeToJson(c.dataType)),
          columnPositionType: COLUMN_POSITION_CODES[c.position ?? 'LAST'],
          ...(c.comment === undefined ? {} : { comment: c.comment }),
          ...(c.defaultValue === undefined ? {} : { defaultValue: c.defaultValue }),
        })
        break
      case 'drop':
        out.dropColumns.push({ columnName: c.name })
        break
      case 'rename':
        out.renameColumns.push({ oldColumnName: c.name, newColumnName: c.newName })
        break
      case 'modify':
        out.modifyColumns.push({
          columnName: c.name,
          ...(c.dataType === undefined ? {} : { dataTypeJson: Buffer.from(dataTypeToJson(c.dataType)) }),
          ...(c.comment === undefined
            ? {}
            : c.comment === null
              ? { dropComment: true }
              : { comment: c.comment }),
          ...(c.defaultValue === undefined
            ? {}
            : c.defaultValue === null
              ? { dropDefault: true }
              : { defaultValue: c.defaultValue }),
          ...(c.position === undefined ? {} : { columnPositionType: COLUMN_POSITION_CODES[c.position] }),
        })
        break
    }
  }
  return out
}
