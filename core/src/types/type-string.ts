import { type DataType, DataTypes, dataTypeProblem, type RowField, withNullability } from './data-type.js'
import { MAX_TYPE_NESTING_DEPTH } from './json.js'

/**
 * Parses the compact text form of a Fluss type, as Fluss prints it: `INT`, `DECIMAL(10, 2) NOT NULL`,
 * `TIMESTAMP_LTZ(3)`, `ARRAY<STRING>`, `MAP<STRING, BIGINT>`, `ROW<id INT, name STRING>`.
 * Keywords are case-insensitive. Throws RangeError with a reason the caller prefixes with a path.
 */
export function parseTypeString(text: string): DataType {
  const p = new TypeParser(text)
  const t = p.type(0)
  p.expectEnd()
  return t
}

const TOKEN = /\s*(?:([A-Za-z_][A-Za-z0-9_]*)|(\d+)|(`(?:[^`]|``)+`)|([(),<>]))/y

type Token = { kind: 'word' | 'number' | 'quoted' | 'symbol'; text: string }

const SIMPLE: Record<string, () => DataType> = {
  BOOLEAN: DataTypes.BOOLEAN,
  TINYINT: DataTypes.TINYINT,
  SMALLINT: DataTypes.SMALLINT,
  INT: DataTypes.INT,
  INTEGER: DataTypes.INT,
  BIGINT: DataTypes.BIGINT,
  FLOAT: DataTypes.FLOAT,
  DOUBLE: DataTypes.DOUBLE,
  STRING: DataTypes.STRING,
  BYTES: DataTypes.BYTES,
  DATE: DataTypes.DATE,
}

class TypeParser {
  readonly #tokens: Token[] = []
  #at = 0

  constructor(readonly text: string) {
    TOKEN.lastIndex = 0
    let m: RegExpExecArray | null
    for (;;) {
      const start = TOKEN.lastIndex
      m = TOKEN.exec(text)
      if (m === null) {
        if (text.slice(start).trim() !== '')
          throw new RangeError(`unexpected '${text.slice(start).trim()[0]}' in type '${text}'`)
        break
      }
      if (m[1] !== undefined) this.#tokens.push({ kind: 'word', text: m[1] })
      else if (m[2] !== undefined) this.#tokens.push({ kind: 'number', text: m[2] })
      else if (m[3] !== undefined)
        this.#tokens.push({ kind: 'quoted', text: m[3].slice(1, -1).replaceAll('``', '`') })
      else this.#tokens.push({ kind: 'symbol', text: m[4] })
    }
  }

  #peek(): Token | undefined {
    return this.#tokens[this.#at]
  }

  #next(what: string): Token {
    const t = this.#tokens[this.#at++]
    if (t === undefined) throw new RangeError(`type '${this.text}' ends where ${what} was expected`)
    return t
  }

  #symbol(s: string): void {
    const t = this.#next(`'${s}'`)
    if (t.text !== s || t.kind !== 'symbol')
      throw new RangeError(`expected '${s}' but found '${t.text}' in type '${this.text}'`)
  }

  #acceptWord(...words: string[]): boolean {
    const save = this.#at
    for (const w of words) {
      const t = this.#peek()
      if (t?.kind !== 'word' || t.text.toUpperCase() !== w) {
        this.#at = save
        return false
      }
      this.#at++
    }
    return true
  }

  #int(): number {
    const t = this.#next('a number')
    if (t.kind !== 'number')
      throw new RangeError(`expected a number but found '${t.text}' in type '${this.text}'`)
    return Number(t.text)
  }

  /** `(n)` or `(p, s)` parameters; undefined when absent. */
  #params(max: number): number[] | undefined {
    if (this.#peek()?.text !== '(') return undefined
    this.#symbol('(')
    const out = [this.#int()]
    while (out.length < max && this.#peek()?.text === ',') {
      this.#symbol(',')
      out.push(this.#int())
    }
    this.#symbol(')')
    return out
  }

  type(depth: number): DataType {
    if (depth > MAX_TYPE_NESTING_DEPTH)
      throw new RangeError(`type nests deeper than ${MAX_TYPE_NESTING_DEPTH} levels`)
    const base = this.#root(depth)
    const notNull = this.#acceptWord('NOT', 'NULL')
    if (!notNull) this.#acceptWord('NULL')
    const t = withNullability(base, !notNull)
    const problem = dataTypeProblem(t)
    if (problem !== undefined) throw new RangeError(problem)
    return t
  }

  #root(depth: number): DataType {
    const t = this.#next('a type name')
    const name = t.text.toUpperCase()
    if (t.kind !== 'word')
      throw new RangeError(`expected a type name but found '${t.text}' in type '${this.text}'`)
    const simple = Object.hasOwn(SIMPLE, name) ? SIMPLE[name] : undefined
    if (simple !== undefined) return simple()
    switch (name) {
      case 'CHAR':
        return DataTypes.CHAR(this.#params(1)?.[0] ?? 1)
      case 'BINARY':
        return DataTypes.BINARY(this.#params(1)?.[0] ?? 1)
      case 'DECIMAL': {
        const [precision, scale] = this.#params(2) ?? [10, 0]
        return DataTypes.DECIMAL(precision, scale ?? 0)
      }
      case 'TIME':
        return DataTypes.TIME(this.#params(1)?.[0] ?? 0)
      case 'TIMESTAMP': {
        const precision = this.#params(1)?.[0] ?? 6
        if (this.#acceptWord('WITH', 'LOCAL', 'TIME', 'ZONE')) return DataTypes.TIMESTAMP_LTZ(precision)
        this.#acceptWord('WITHOUT', 'TIME', 'ZONE')
        return DataTypes.TIMESTAMP(precision)
      }
      case 'TIMESTAMP_LTZ':
        return DataTypes.TIMESTAMP_LTZ(this.#params(1)?.[0] ?? 6)
      case 'ARRAY':
        return this.#array(depth)
      case 'MAP':
        return this.#map(depth)
      case 'ROW':
        return this.#row(depth)
      default:
        throw new RangeError(`unknown type '${t.text}'`)
    }
  }

  #array(depth: number): DataType {
    this.#symbol('<')
    const element = this.type(depth + 1)
    this.#symbol('>')
    return DataTypes.ARRAY(element)
  }

  #map(depth: number): DataType {
    this.#symbol('<')
    const key = this.type(depth + 1)
    this.#symbol(',')
    const value = this.type(depth + 1)
    this.#symbol('>')
    return DataTypes.MAP(key, value)
  }

  #row(depth: number): DataType {
    this.#symbol('<')
    const fields: RowField[] = []
    for (;;) {
      const name = this.#next('a field name')
      if (name.kind !== 'word' && name.kind !== 'quoted')
        throw new RangeError(`expected a field name but found '${name.text}'`)
      fields.push({ name: name.text, type: this.type(depth + 1), fieldId: -1 })
      if (this.#peek()?.text !== ',') break
      this.#symbol(',')
    }
    this.#symbol('>')
    return DataTypes.ROW(fields)
  }

  expectEnd(): void {
    const t = this.#peek()
    if (t !== undefined) throw new RangeError(`unexpected '${t.text}' after the type in '${this.text}'`)
  }
}
