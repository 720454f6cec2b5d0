import { type JsonSchema, validateSchema } from '../openapi/json-schema.js'

type Doc = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }> }>
  >
  components: { schemas: Record<string, JsonSchema> }
}

function templateMatches(template: string, path: string): boolean {
  const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')
  return new RegExp(`^${source}$`).test(path)
}

/**
 * Checks a response against the OpenAPI document: the operation must document the status, and a
 * JSON body must validate against its schema. Paths or methods without an operation must answer
 * with the error envelope (404/405). Returns the problem, or undefined when the response conforms.
 */
export function responseProblem(
  document: unknown,
  method: string,
  path: string,
  status: number,
  body: unknown,
): string | undefined {
  const doc = document as Doc
  const resolve = (ref: string) => {
    const schema = doc.components.schemas[ref.replace('#/components/schemas/', '')]
    if (schema === undefined) throw new Error(`unresolved ${ref}`)
    return schema
  }
  const templates = Object.keys(doc.paths).filter(t => templateMatches(t, path))
  const template = templates.find(t => !t.includes('{')) ?? templates[0]
  const op = template === undefined ? undefined : doc.paths[template][method.toLowerCase()]
  if (op === undefined) {
    if (status !== 404 && status !== 405) return `${method} ${path} has no operation, yet answered ${status}`
    return validateSchema({ $ref: '#/components/schemas/ErrorEnvelope' }, body, 'body', resolve)
  }
  const response = op.responses[String(status)]
  if (response === undefined) return `${method} ${template} does not document status ${status}`
  const schema = response.content?.['application/json']?.schema
  if (schema === undefined)
    return body === undefined ? undefined : `${method} ${template} ${status} documents no body`
  return validateSchema(schema, body, 'body', resolve)
}
