import { FlussError } from '@sluice/core/errors'

/**
 * Iceberg's binary single-value serialization (spec Appendix D), used for column bounds in
 * manifests and partition bounds in manifest lists. Values are given in their Iceberg form:
 * boolean; int and date as number; long, time, timestamp and timestamptz as bigint (micros);
 * string; decimal as its unscaled bigint; binary and fixed as bytes.
 */
export type IcebergValue = boolean | number | bigint | string | Uint8Array

const utf8 = new TextEncoder()
const utf8Decoder = new TextDecoder('utf-8', { fatal: true })

/** The 4-byte little-endian form of an int or date. */
function int32Bytes(n: number): Uint8Array {
  const out = new Uint8Array(4)
  new DataView(out.buffer).setInt32(0, n, true)
  return out
}

function int64Bytes(n: bigint): Uint8Array {
  const out = new Uint8Array(8)
  new DataView(out.buffer).setBigInt64(0, n, true)
  return out
}

/** Minimal big-endian two's complement of an unscaled decimal. */
export function decimalBytes(unscaled: bigint): Uint8Array {
  let length = 1
  while (unscaled < -(1n << BigInt(8 * length - 1)) || unscaled >= 1n << BigInt(8 * length - 1)) length++
  const out = new Uint8Array(length)
  let v = BigInt.asUintN(8 * length, unscaled)
  for (let i = length - 1; i >= 0; i--) {
    out[i] = Number(v & 0xffn)
    v >>= 8n
  }
  return out
}

function decimalFromBytes(bytes: Uint8Array): bigint {
  let v = 0n
  for (const b of bytes) v = (v << 8n) | BigInt(b)
  return BigInt.asIntN(8 * bytes.length, v)
}

/** The serialized form of `value` for a column or partition field of `icebergType`. */
export function toBoundBytes(icebergType: string, value: IcebergValue): Uint8Array {
  switch (baseType(icebergType)) {
    case 'boolean':
      return new Uint8Array([value === true ? 1 : 0])
    case 'int':
    case 'date':
      return int32Bytes(value as number)
    case 'long':
    case 'time':
    case 'timestamp':
    case 'timestamptz':
      return int64Bytes(BigInt(value as bigint | number))
    case 'string':
      return utf8.encode(value as string)
    case 'decimal':
      return decimalBytes(value as bigint)
    case 'binary':
    case 'fixed':
      return value as Uint8Array
    default:
      throw new FlussError('INVALID_REQUEST', `no single-value serialization for Iceberg type ${icebergType}`)
  }
}

/** Reverses `toBoundBytes`; CORRUPT_MESSAGE when the bytes do not fit the type. */
export function fromBoundBytes(icebergType: string, bytes: Uint8Array): IcebergValue {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const need = (n: number) => {
    if (bytes.length !== n) {
      throw new FlussError('CORRUPT_MESSAGE', `${icebergType} bound has ${bytes.length} bytes, expected ${n}`)
    }
  }
  switch (baseType(icebergType)) {
    case 'boolean':
      need(1)
      return bytes[0] !== 0
    case 'int':
    case 'date':
      need(4)
      return view.getInt32(0, true)
    case 'long':
    case 'time':
    case 'timestamp':
    case 'timestamptz':
      need(8)
      return view.getBigInt64(0, true)
    case 'string':
      try {
        return utf8Decoder.decode(bytes)
      } catch {
        throw new FlussError('CORRUPT_MESSAGE', 'string bound is not valid UTF-8')
      }
    case 'decimal':
      return decimalFromBytes(bytes)
    default:
      return bytes
  }
}

/** `decimal(10, 2)` → `decimal`, `fixed[4]` → `fixed`. */
export function baseType(icebergType: string): string {
  const m = /^[a-z]+/.exec(icebergType)
  return m === null ? icebergType : m[0]
}

/** Iceberg's ordering of two values of the same type (strings and bytes: unsigned bytes). */
export function compareIcebergValues(a: IcebergValue, b: IcebergValue): number {
  if (typeof a === 'string' && typeof b === 'string') return Buffer.compare(utf8.encode(a), utf8.encode(b))
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b)
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b)
  if (typeof a === 'bigint' || typeof b === 'bigint') {
    const x = BigInt(a as bigint)
    const y = BigInt(b as bigint)
    return x < y ? -1 : x > y ? 1 : 0
  }
  return (a as number) - (b as number)
}
