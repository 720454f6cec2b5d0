import { FlussError } from '../errors/index.js'

/** Who a request comes from (Fluss's `FlussPrincipal`): a type (`User`) and a name. */
export interface FlussPrincipal {
  readonly type: string
  readonly name: string
}

export const USER_TYPE = 'User'
/** The principal of a connection on a PLAINTEXT listener. */
export const ANONYMOUS: FlussPrincipal = Object.freeze({ type: USER_TYPE, name: 'ANONYMOUS' })
/** In an ACL entry: every principal. */
export const WILDCARD_PRINCIPAL: FlussPrincipal = Object.freeze({ type: '*', name: '*' })

export function principalToString(p: FlussPrincipal): string {
  return `${p.type}:${p.name}`
}

export function samePrincipal(a: FlussPrincipal, b: FlussPrincipal): boolean {
  return a.type === b.type && a.name === b.name
}

export function userPrincipal(name: string): FlussPrincipal {
  return { type: USER_TYPE, name }
}

/** Parses `Type:name` (e.g. `User:alice`); the name may itself contain colons. */
export function parsePrincipal(text: string, what = 'principal'): FlussPrincipal {
  const trimmed = text.trim()
  const colon = trimmed.indexOf(':')
  if (colon <= 0 || colon === trimmed.length - 1) {
    throw new FlussError(
      'INVALID_CONFIG_EXCEPTION',
      `${what} '${trimmed}' is not of the form 'Type:name' (e.g. 'User:alice')`,
    )
  }
  return { type: trimmed.slice(0, colon), name: trimmed.slice(colon + 1) }
}

/** `super.users`: principals separated by semicolons, e.g. `User:admin;User:ops`. */
export function parseSuperUsers(text: string | undefined, key = 'super.users'): FlussPrincipal[] {
  if (text === undefined || text.trim() === '') return []
  return text
    .split(';')
    .map(s => s.trim())
    .filter(s => s.length > 0)
    .map(s => parsePrincipal(s, `'${key}' entry`))
}
