import { describe, expect, it } from 'vitest'
import { expectFlussError } from '../testing/expect-error.js'
import {
  detectInvalidName,
  parseTableBucketKey,
  physicalTablePath,
  physicalTablePathToString,
  tableBucket,
  tableBucketEquals,
  tableBucketKey,
  tableBucketToString,
  tablePath,
  tablePathToString,
  validateDatabaseName,
  validateTableName,
  validateTablePath,
} from './table-path.js'

describe('table paths', () => {
  it('accepts 1-200 chars of [A-Za-z0-9_-]', () => {
    expect(() => validateTablePath(tablePath('db-1', 'Table_2'))).not.toThrow()
    expect(() => validateTableName('t'.repeat(200))).not.toThrow()
    expect(tablePathToString(tablePath('db', 't'))).toBe('db.t')
  })

  it.each([
    ['', 'the empty string is not allowed'],
    ['.', "'.' is not allowed"],
    ['..', "'..' is not allowed"],
    ['a.b', "'a.b' contains one or more characters other than ASCII alphanumerics, '_' and '-'"],
    ['ä', "'ä' contains one or more characters other than ASCII alphanumerics, '_' and '-'"],
    ['x'.repeat(201), `the length of '${'x'.repeat(201)}' is longer than the max allowed length 200`],
    [
      '__internal',
      "'__' is not allowed as prefix, since it is reserved for internal databases/internal tables/internal partitions in Fluss server",
    ],
  ])('rejects %j', (name, reason) => {
    expectFlussError(
      () => validateDatabaseName(name),
      'INVALID_DATABASE_EXCEPTION',
      `Database name ${name} is invalid: ${reason}`,
    )
    expectFlussError(
      () => validateTableName(name),
      'INVALID_TABLE_EXCEPTION',
      `Table name ${name} is invalid: ${reason}`,
    )
  })

  it('checks the database before the table', () => {
    expectFlussError(() => validateTablePath(tablePath('a b', 'c d')), 'INVALID_DATABASE_EXCEPTION')
    expectFlussError(() => validateTablePath(tablePath('ab', 'c d')), 'INVALID_TABLE_EXCEPTION')
    expect(detectInvalidName(null)).toBe('null string is not allowed')
  })

  it('prints physical paths like Fluss', () => {
    expect(physicalTablePathToString(physicalTablePath(tablePath('db', 't')))).toBe('db.t')
    expect(physicalTablePathToString(physicalTablePath(tablePath('db', 't'), '2024$A'))).toBe(
      'db.t(p=2024$A)',
    )
  })
})

describe('table buckets', () => {
  it('has a stable key that round-trips', () => {
    const plain = tableBucket(7, 3)
    const partitioned = tableBucket(7, 3, 12)
    expect(tableBucketKey(plain)).toBe('7:-:3')
    expect(tableBucketKey(partitioned)).toBe('7:12:3')
    expect(parseTableBucketKey('7:-:3')).toEqual(plain)
    expect(tableBucketEquals(parseTableBucketKey('7:12:3'), partitioned)).toBe(true)
    expect(tableBucketEquals(plain, partitioned)).toBe(false)
    expect(tableBucketToString(partitioned)).toBe('TableBucket{tableId=7, partitionId=12, bucket=3}')
    expect(tableBucketToString(plain)).toBe('TableBucket{tableId=7, bucket=3}')
  })

  it('rejects malformed keys', () => {
    expectFlussError(
      () => parseTableBucketKey('7:x:3'),
      'INVALID_REQUEST',
      "Malformed table bucket key '7:x:3'",
    )
  })
})
