import { FlussError, isFlussError } from '@sluice/core/errors'
import { Schema } from '@sluice/core/metadata'
import { DataTypes } from '@sluice/core/types'
import { describe, expect, it } from 'vitest'
import { TableSchemas } from './table-schemas.js'

const v1 = Schema.newBuilder().column('id', DataTypes.INT()).primaryKey('id').build()
const v2 = Schema.newBuilder().fromSchema(v1).column('note', DataTypes.STRING()).build()

/** Schemas 1 (current) and 2 (added later) of a table; 0 never existed. */
function table(stored: Map<number, Schema> = new Map([[2, v2]])) {
  const loads: number[] = []
  const schemas = new TableSchemas(1, v1, { physicalPrimaryKeys: ['id'] }, async id => {
    loads.push(id)
    const schema = stored.get(id)
    if (schema === undefined) throw new FlussError('SCHEMA_NOT_EXIST', `no schema ${id}`)
    return schema
  })
  return { schemas, loads }
}

describe('TableSchemas', () => {
  it('loads an unknown id once, and a newer one becomes the latest', async () => {
    const { schemas, loads } = table()
    expect(schemas.latest().schemaId).toBe(1)
    const [a, b] = await Promise.all([schemas.rowType(2), schemas.rowType(2)])
    expect(a).toBe(v2.rowType)
    expect(b).toBe(v2.rowType)
    expect(schemas.rowType(2)).toBe(v2.rowType)
    expect(loads).toEqual([2])
    expect(schemas.latest().schema).toBe(v2)
    expect(schemas.context(1).schema).toBe(v1)
    expect(schemas.context(2)).toBe(schemas.latest())
  })

  it('keeps an id that does not exist unknown, and asks for it again', async () => {
    const { schemas, loads } = table()
    await expect(schemas.rowType(5)).rejects.toMatchObject({ errorName: 'SCHEMA_NOT_EXIST' })
    await schemas.ensure(5)
    expect(() => schemas.context(5)).toThrow(/Schema with ID 5 not found/)
    expect(loads).toEqual([5, 5])
    await schemas.ensure(-1)
    expect(loads).toEqual([5, 5])
  })

  it('makes a put schema known before it is applied; a failing control plane is a KV storage error', async () => {
    const { schemas } = table()
    await schemas.ensure(2)
    expect(schemas.latestId).toBe(2)
    const failing = new TableSchemas(1, v1, { physicalPrimaryKeys: ['id'] }, async () => {
      throw new Error('metadata store unreachable')
    })
    const error = await failing.ensure(3).then(
      () => undefined,
      e => e,
    )
    expect(isFlussError(error, 'KV_STORAGE_EXCEPTION')).toBe(true)
  })

  it('preloads the older schemas of the table, skipping ids that never existed', async () => {
    const loads: number[] = []
    const schemas = new TableSchemas(2, v2, { physicalPrimaryKeys: ['id'] }, async id => {
      loads.push(id)
      if (id === 1) return v1
      throw new FlussError('SCHEMA_NOT_EXIST', `no schema ${id}`)
    })
    await schemas.preload()
    expect(loads.sort()).toEqual([0, 1])
    expect(schemas.schema(1)).toBe(v1)
    expect(schemas.latestId).toBe(2)
  })

  it('has no KV contexts for a log table', () => {
    const log = new TableSchemas(1, v1, null, async () => v1)
    expect(log.rowType(1)).toBe(v1.rowType)
    expect(() => log.latest()).toThrow(/no KV key columns/)
  })
})
