import { ERRORS, type ErrorSpec } from './codes.js'

/** The markdown of docs/errors.md: one section per error code, in code order. */
export function renderErrorsDoc(): string {
  const specs = Object.values(ERRORS).sort((a, b) => a.code - b.code)
  const out: string[] = [
    '# Error codes',
    '',
    '<!-- Generated from core/src/errors/codes.ts by core/src/config/write-docs.ts. Do not edit by hand. -->',
    '',
    'Codes below 1000 are Apache Fluss 0.9.1\'s (`Errors.java`) and cross the RPC boundary unchanged. Codes from 1000 up are Sluice\'s own; on the Fluss wire they are sent as the Fluss code named under *wire code*. *Retriable*: the same request may be sent again. *Stale metadata*: refresh metadata (leaders, buckets) before retrying. The gateway answers with the HTTP status and an envelope `{"error":{"code":<gateway code>,"message":...,"request_id":...}}`.',
    '',
  ]
  for (const spec of specs) out.push(...section(spec))
  return out.join('\n')
}

function section(spec: ErrorSpec): string[] {
  const lines = [
    `## ${spec.code} ${spec.name}`,
    '',
    spec.message,
    '',
    `- Retriable: ${spec.retriable ? 'yes' : 'no'}`,
    `- Stale metadata: ${spec.staleMetadata ? 'yes' : 'no'}`,
    `- HTTP status: ${spec.http}`,
    `- Gateway code: \`${spec.gatewayCode}\``,
  ]
  if (spec.wireCode !== undefined) {
    const wire = Object.values(ERRORS).find(e => e.code === spec.wireCode)
    lines.push(`- Wire code: ${spec.wireCode}${wire ? ` (${wire.name})` : ''}`)
  }
  lines.push('')
  return lines
}
