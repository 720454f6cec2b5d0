import { describe, expect, it } from 'vitest'
import { Prng } from '../testing/random-json-bodies.js'
import { MILLIS_PER_DAY, parseDate, parseDateTime } from './temporal.js'

/**
 * Reference readings of dates and date-times: one regular expression per form and JS Date for the
 * calendar. The parsers under test read the usual forms by hand; both must agree on every text.
 */
const DATE = /^([+-]\d{6}|\d{4})-(\d{2})-(\d{2})$/
const DATE_TIME =
  /^([+-]\d{6}|\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})?$/

function referenceDay(year: number, month: number, day: number): number {
  const d = new Date(0)
  d.setUTCFullYear(year, month - 1, day)
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) {
    throw new RangeError(`${year}-${month}-${day} is not a calendar date`)
  }
  return Math.round(d.getTime() / MILLIS_PER_DAY)
}

function referenceDate(text: string): number | null {
  const m = DATE.exec(text)
  return m === null ? null : referenceDay(Number(m[1]), Number(m[2]), Number(m[3]))
}

function referenceDateTime(text: string) {
  const m = DATE_TIME.exec(text)
  if (m === null) return null
  const day = referenceDay(Number(m[1]), Number(m[2]), Number(m[3]))
  const [hour, minute, second] = [Number(m[4]), Number(m[5]), Number(m[6])]
  if (hour > 23 || minute > 59 || second > 59) throw new RangeError(`'${text}' has an invalid time of day`)
  const padded = (m[7] ?? '').padEnd(9, '0')
  const zone = m[8]
  let offsetMinutes: number | undefined
  if (zone !== undefined) {
    const [hours, minutes] = zone === 'Z' ? [0, 0] : [Number(zone.slice(1, 3)), Number(zone.slice(4, 6))]
    if (hours > 18 || minutes > 59) throw new RangeError(`zone offset '${zone}' is out of range`)
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes)
  }
  return {
    millis: day * MILLIS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000 + Number(padded.slice(0, 3)),
    nanoOfMillis: Number(padded.slice(3)),
    fractionDigits: (m[7] ?? '').replace(/0+$/, '').length,
    offsetMinutes,
  }
}

function outcome<T>(read: () => T): T | string {
  try {
    return read()
  } catch (e) {
    expect(e).toBeInstanceOf(RangeError)
    return `RangeError: ${(e as Error).message}`
  }
}

function randomText(rnd: Prng): string {
  const pieces = [
    '-',
    ':',
    'T',
    ' ',
    '.',
    'Z',
    '+',
    '0',
    '1',
    '2',
    '9',
    '5',
    '12',
    '31',
    '29',
    '02',
    '24',
    '60',
  ]
  const year = rnd.pick([
    '1970',
    '2024',
    '0000',
    '9999',
    '+010000',
    '-000001',
    '+275760',
    '-271821',
    '1900',
    '2000',
  ])
  const base = `${year}-${rnd.pick(['01', '02', '12', '13', '00', '1'])}-${rnd.pick(['01', '28', '29', '30', '31', '32', '00'])}`
  const time = `${rnd.pick(['T', ' ', 't'])}${rnd.pick(['00', '23', '24'])}:${rnd.pick(['00', '59', '60'])}:${rnd.pick(['00', '59', '60'])}`
  const fraction = rnd.chance(0.5) ? `.${'0123456789'.slice(0, rnd.int(11))}` : ''
  const zone = rnd.pick(['', '', 'Z', '+05:30', '-18:00', '+19:00', '-00:60', '+0530', 'z'])
  let text = rnd.chance(0.3) ? base : `${base}${time}${fraction}${zone}`
  for (let k = rnd.int(3); k > 0; k--) {
    const at = rnd.int(text.length + 1)
    text = rnd.chance(0.5)
      ? `${text.slice(0, at)}${rnd.pick(pieces)}${text.slice(at)}`
      : `${text.slice(0, at)}${text.slice(at + 1)}`
  }
  return text
}

describe('date and date-time text', () => {
  it('reads every date and date-time as the reference does, or fails the same way', () => {
    const fixed = [
      '2024-02-29',
      '2023-02-29',
      '1900-02-29',
      '2000-02-29',
      '0000-01-01',
      '+275760-09-13',
      '+275760-09-14',
      '-271821-04-20',
      '-271821-04-19',
      '2024-02-29T23:59:59.999999999+05:30',
      '2024-02-29 00:00:00Z',
      '1969-12-31T23:59:59.000000001',
      '2024-01-01T00:00:00.1234567890',
      '2024-01-01T00:00:00.',
      '2024-01-01T24:00:00',
      '2024-01-01T00:00:00+18:59',
      '2024-01-01T00:00:00+19:00',
      '+010000-01-01T00:00:00Z',
      '2024-01-01T00:00:00Z ',
    ]
    const rnd = new Prng(2024)
    const texts = [...fixed, ...Array.from({ length: 8000 }, () => randomText(rnd))]
    for (const text of texts) {
      expect(
        outcome(() => parseDate(text)),
        text,
      ).toEqual(outcome(() => referenceDate(text)))
      expect(
        outcome(() => parseDateTime(text)),
        text,
      ).toEqual(outcome(() => referenceDateTime(text)))
    }
  })
})
