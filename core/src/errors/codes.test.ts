import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { ERRORS, errorByCode } from './codes.js'
import { FlussError } from './fluss-error.js'

const ERRORS_MD = fileURLToPath(new URL('../../../docs/errors.md', import.meta.url))
const specs = Object.values(ERRORS)

describe('error table policy', () => {
  it('has unique codes', () => {
    const codes = specs.map(s => s.code)
    expect(new Set(codes).size).toBe(codes.length)
  })

  it('names codes in upper snake case, matching their table key', () => {
    for (const [key, spec] of Object.entries(ERRORS)) {
      expect(spec.name).toMatch(/^[A-Z_]+$/)
      expect(spec.name).toBe(key)
    }
  })

  it('gives every code a section in docs/errors.md', () => {
    const doc = readFileSync(ERRORS_MD, 'utf8')
    for (const s of specs) expect(doc, `docs/errors.md lacks ${s.name}`).toContain(`## ${s.code} ${s.name}\n`)
  })

  it('round-trips every code through FlussError.fromCode', () => {
    for (const s of specs) {
      const e = FlussError.fromCode(s.code, 'detail')
      expect(e.spec).toBe(s)
      expect(e.errorName).toBe(s.name)
      expect(e.message).toBe('detail')
      expect(FlussError.fromCode(e.code).message).toBe(s.message)
    }
  })

  it('keeps Fluss codes below 1000 and maps every Sluice code to a Fluss wire code', () => {
    for (const s of specs) {
      if (s.code < 1000) expect(s.wireCode, s.name).toBeUndefined()
      else expect(errorByCode(s.wireCode as number).code, s.name).toBeLessThan(1000)
    }
  })

  it('marks stale-metadata errors retriable and uses valid HTTP statuses', () => {
    for (const s of specs) {
      if (s.staleMetadata) expect(s.retriable, s.name).toBe(true)
      expect(s.http >= 200 && s.http < 600, s.name).toBe(true)
      expect(s.gatewayCode).toMatch(/^[a-z_]+$/)
    }
  })

  it("uses Fluss 0.9.1's code and default text for every Fluss error (what clients show without a message)", () => {
    const fluss = JSON.parse(
      readFileSync(new URL('./test-fixtures/fluss-errors.json', import.meta.url), 'utf8'),
    ).errors as Record<string, { code: number; message: string }>
    for (const s of specs.filter(x => x.code > 0 && x.code < 1000)) {
      expect({ name: s.name, code: s.code, message: s.message }).toEqual({ name: s.name, ...fluss[s.name] })
    }
    expect(Object.keys(fluss).filter(name => !(name in ERRORS))).toEqual([])
  })

  it('maps unknown codes to UNKNOWN_SERVER_ERROR', () => {
    expect(FlussError.fromCode(9999).errorName).toBe('UNKNOWN_SERVER_ERROR')
  })
})
