/** Portable CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), slice-by-8. */

const TABLES: Uint32Array[] = (() => {
  const t0 = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1
    t0[n] = c >>> 0
  }
  const tables = [t0]
  for (let s = 1; s < 8; s++) {
    const prev = tables[s - 1]
    const t = new Uint32Array(256)
    for (let n = 0; n < 256; n++) t[n] = (prev[n] >>> 8) ^ t0[prev[n] & 0xff]
    tables.push(t)
  }
  return tables
})()

export function crc32cJs(bytes: Uint8Array, initial = 0): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = TABLES
  let crc = ~initial >>> 0
  let i = 0
  const n = bytes.length
  for (; i + 8 <= n; i += 8) {
    const a = (crc ^ (bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24))) >>> 0
    crc =
      t7[a & 0xff] ^
      t6[(a >>> 8) & 0xff] ^
      t5[(a >>> 16) & 0xff] ^
      t4[a >>> 24] ^
      t3[bytes[i + 4]] ^
      t2[bytes[i + 5]] ^
      t1[bytes[i + 6]] ^
      t0[bytes[i + 7]]
  }
  for (; i < n; i++) crc = (crc >>> 8) ^ t0[(crc ^ bytes[i]) & 0xff]
  return ~crc >>> 0
}
