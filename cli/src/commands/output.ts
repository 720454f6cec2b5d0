import Table from 'cli-table3'
import type { Io } from './context.js'

/** Prints `rows` as a table (header = `columns`) or as one JSON document. */
export function printRows(
  io: Io,
  format: 'table' | 'json' | undefined,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
  json: unknown = rows.map(r => Object.fromEntries(columns.map((c, i) => [c, r[i]]))),
): void {
  if (format === 'json') {
    io.out(`${JSON.stringify(json, jsonReplacer, 2)}\n`)
    return
  }
  const table = new Table({ head: [...columns], style: { head: [], border: [] } })
  for (const r of rows) table.push(r.map(cell))
  io.out(`${table.toString()}\n`)
}

/** A key/value listing (describe, status). */
export function printRecord(
  io: Io,
  format: 'table' | 'json' | undefined,
  record: Record<string, unknown>,
): void {
  if (format === 'json') {
    io.out(`${JSON.stringify(record, jsonReplacer, 2)}\n`)
    return
  }
  const table = new Table({ style: { head: [], border: [] } })
  for (const [k, v] of Object.entries(record)) table.push({ [k]: cell(v) })
  io.out(`${table.toString()}\n`)
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return ''
  if (typeof v === 'object') return JSON.stringify(v, jsonReplacer)
  return String(v)
}

export function jsonReplacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? String(value) : value
}
