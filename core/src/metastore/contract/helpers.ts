import { randomUUID } from 'node:crypto'
import { expect } from 'vitest'
import { FlussError } from '../../errors/index.js'
import { isMetaStoreConflict, type MetaStoreConflictError } from '../conflict.js'

/** A partition key no other case (or concurrent run against a shared emulator) uses. */
export function uniquePk(label: string): string {
  return `CONTRACT#${label}#${randomUUID()}`
}

/** Awaits a promise that must fail with METASTORE_CONFLICT, and returns the error. */
export async function expectConflict(p: Promise<unknown>): Promise<MetaStoreConflictError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  )
  expect(e, 'expected a METASTORE_CONFLICT').toBeInstanceOf(FlussError)
  const f = e as FlussError
  expect(f.errorName).toBe('METASTORE_CONFLICT')
  expect(f.code).toBe(1000)
  expect(f.retriable).toBe(true)
  expect(isMetaStoreConflict(f)).toBe(true)
  return f as MetaStoreConflictError
}

/** Awaits a promise that must fail with the given FlussError name. */
export async function expectFlussError(
  p: Promise<unknown> | (() => unknown),
  name: string,
): Promise<FlussError> {
  let e: unknown
  try {
    await (typeof p === 'function' ? p() : p)
  } catch (err) {
    e = err
  }
  expect(e, `expected FlussError(${name})`).toBeInstanceOf(FlussError)
  expect((e as FlussError).errorName).toBe(name)
  return e as FlussError
}
