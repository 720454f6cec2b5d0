import { DataTypes } from '@sluice/core/types'
import { describe, expect, it } from 'vitest'
import { tableChangesOf } from './alter-options.js'
import { CliError, EXIT } from './context.js'

/** `name:TYPE` with INT, BIGINT or STRING (enough for these tests). */
const parseColumn = (spec: string) => {
  const [name, type] = spec.split(':')
  const types = { INT: DataTypes.INT(), BIGINT: DataTypes.BIGINT(), STRING: DataTypes.STRING() }
  return { name, type: types[type as keyof typeof types] }
}

const usage = (fn: () => unknown) => {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(CliError)
    expect((e as CliError).exitCode).toBe(EXIT.USAGE)
    return (e as CliError).message
  }
  throw new Error('expected a usage error')
}

describe('table alter flags', () => {
  it('gives an added column its comment and default, and modifies existing columns with the rest', () => {
    const changes = tableChangesOf(
      {
        addColumn: ['region:STRING'],
        columnComment: ['region=where', 'qty=how many'],
        columnDefault: ['region=eu'],
        dropColumnDefault: ['note'],
        modifyColumn: ['qty:BIGINT'],
        dropColumn: ['tmp'],
        renameColumn: ['label=title'],
      },
      parseColumn,
    )
    expect(changes.addColumns).toEqual([
      { name: 'region', type: DataTypes.STRING(), comment: 'where', defaultValue: 'eu' },
    ])
    expect(changes.modifyColumns).toEqual([
      { name: 'qty', type: DataTypes.BIGINT(), comment: 'how many' },
      { name: 'note', defaultValue: null },
    ])
    expect(changes.dropColumns).toEqual(['tmp'])
    expect(changes.renameColumns).toEqual([{ name: 'label', newName: 'title' }])
  })

  it('takes properties alone', () => {
    expect(tableChangesOf({ set: ['table.log.ttl=2d'], reset: ['x'] }, parseColumn)).toMatchObject({
      set: { 'table.log.ttl': '2d' },
      reset: ['x'],
      addColumns: [],
    })
  })

  it('refuses nothing to alter, properties with columns, and malformed pairs', () => {
    expect(usage(() => tableChangesOf({}, parseColumn))).toMatch(/nothing to alter/)
    expect(usage(() => tableChangesOf({ set: ['a=b'], dropColumn: ['c'] }, parseColumn))).toMatch(
      /separate commands/,
    )
    expect(usage(() => tableChangesOf({ renameColumn: ['a'] }, parseColumn))).toMatch(/--rename-column 'a'/)
    expect(usage(() => tableChangesOf({ columnDefault: ['=x'] }, parseColumn))).toMatch(/--column-default/)
  })
})
