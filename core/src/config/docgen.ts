import type { ConfigOption, OptionScope } from './option.js'
import { optionsInScope, SCOPES } from './options.js'
import { formatDuration, formatMemorySize } from './units.js'

const SCOPE_TITLES: Record<OptionScope, string> = {
  table: 'Table options',
  cluster: 'Cluster options',
  server: 'Server options',
  client: 'Client options',
  gateway: 'Gateway options',
  local: 'Local mode options',
}

const SCOPE_INTROS: Record<OptionScope, string> = {
  table:
    'Set as table properties at CREATE TABLE and stored with the table. Unknown `table.*` keys are rejected. Only options marked alterable may change with ALTER TABLE.',
  cluster: 'Read by the coordinator; they apply to the whole cluster.',
  server: 'Read by each tablet server and coordinator process at startup.',
  client:
    'Read by clients (the TypeScript SDK, the gateway and the tiering function when they act as clients).',
  gateway: 'Read by the HTTP gateway.',
  local: 'Read by the local cluster (`npm start`, `sluice local`).',
}

/** The markdown of docs/config.md: every registered option, grouped by scope. */
export function renderConfigDoc(): string {
  const out: string[] = [
    '# Configuration',
    '',
    '<!-- Generated from core/src/config/options*.ts by core/src/config/write-docs.ts. Do not edit by hand. -->',
    '',
    "Keys and defaults follow Apache Fluss 0.9.1 (`ConfigOptions`), the Fluss REST gateway, and Sluice's own `sluice.*` keys.",
    'Servers read a flat YAML file (`key: value` lines) and then the `FLUSS_CONF` environment variable, a JSON object of keys to values; `FLUSS_CONF` wins. Durations take a unit (`500ms`, `30s`, `3min`, `2h`, `7d`); a bare number is milliseconds. Sizes take `b`, `kb`, `mb`, `gb` or `tb` (powers of 1024); a bare number is bytes. Keys with a Sluice prefix that are not listed here are rejected as typos; Fluss keys Sluice does not use are ignored with a warning. Keys marked **Not supported** are Fluss keys whose behaviour Sluice does not have: a value other than the accepted one fails with INVALID_CONFIG_EXCEPTION naming the key where it is set (CREATE TABLE, ALTER TABLE, server start, client configuration) instead of being accepted and doing nothing. `core/src/config/consumers.test.ts` checks that every other key is read by the code.',
    '',
  ]
  for (const scope of SCOPES) {
    const options = optionsInScope(scope)
    if (options.length === 0) continue
    out.push(`## ${SCOPE_TITLES[scope]}`, '', SCOPE_INTROS[scope], '')
    const alterColumn = scope === 'table'
    out.push(
      `| Key | Type | Default | Range |${alterColumn ? ' Alterable |' : ''} Description |`,
      `|---|---|---|---|${alterColumn ? '---|' : ''}---|`,
    )
    for (const opt of options) {
      const cells = [`\`${opt.key}\``, typeText(opt), defaultText(opt), rangeText(opt)]
      if (alterColumn) cells.push(opt.alterable ? 'yes' : 'no')
      cells.push(descriptionText(opt))
      out.push(`| ${cells.map(escapeCell).join(' | ')} |`)
    }
    out.push('')
  }
  return out.join('\n')
}

function typeText(opt: ConfigOption<unknown>): string {
  if (opt.kind === 'enum') return `enum: ${opt.enumValues?.join(', ')}`
  if (opt.kind === 'list' && opt.enumValues) return `list of: ${opt.enumValues.join(', ')}`
  return opt.kind
}

function defaultText(opt: ConfigOption<unknown>): string {
  if (opt.defaultText !== undefined) return opt.defaultText
  const v = opt.defaultValue
  if (v === undefined) return '(none)'
  if (opt.kind === 'duration') return `\`${formatDuration(v as number)}\``
  if (opt.kind === 'memory') return `\`${formatMemorySize(v as number)}\``
  if (opt.kind === 'string' && v === '') return '(empty)'
  return `\`${opt.format(v)}\``
}

function rangeText(opt: ConfigOption<unknown>): string {
  if (opt.min === undefined && opt.max === undefined) return ''
  const show = (n: number) =>
    opt.kind === 'duration' ? formatDuration(n) : opt.kind === 'memory' ? formatMemorySize(n) : String(n)
  if (opt.max === undefined) return `≥ ${show(opt.min as number)}`
  if (opt.min === undefined) return `≤ ${show(opt.max)}`
  return `${show(opt.min)} … ${show(opt.max)}`
}

function descriptionText(opt: ConfigOption<unknown>): string {
  const notes: string[] = []
  if (opt.fallbackKeys.length > 0)
    notes.push(`Also read from ${opt.fallbackKeys.map(k => `\`${k}\``).join(', ')}.`)
  if (opt.pattern && !opt.descriptionText.includes(opt.pattern.expected))
    notes.push(`Form: ${opt.pattern.expected}.`)
  if (opt.secret) notes.push('Secret: never logged.')
  if (opt.refusal !== undefined) {
    const accepted =
      opt.refusal.accepted === 'none' ? 'setting it fails' : `only ${opt.refusal.accepted} is accepted`
    notes.push(`**Not supported**: ${opt.refusal.reason}; ${accepted}.`)
  }
  return [opt.descriptionText, ...notes].join(' ')
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ')
}
