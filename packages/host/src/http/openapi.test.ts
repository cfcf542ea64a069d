import { endpointsOf, Router } from '@errands/edge'
import { liveApi, liveRoutes } from '@errands/liveview'
import { Validator } from '@seriousme/openapi-schema-validator'
import { Schema } from 'effect'
import { describe, expect, it } from 'vitest'
import { api } from './api.ts'
import { hostOpenApi } from './openapi.ts'
import { routes, type Route } from './routes.ts'
import { testApp } from './testing.ts'

// Issue #24's declared /v1 (docs/adr/0025) and the live view's API beside it (docs/edge.md, "Declared
// routes"): /v1/openapi.json is OpenAPI 3.1, names every route of both tables with the Schemas the host
// and the live view decode and encode with, and a route cannot be added to either table without being
// declared with its answer.

/** The route table as the app builds it (the services are never called here). */
const table = routes({} as Parameters<typeof routes>[0], { port: 7777 })
/** The live view's route table as it builds it (nothing is called here either). */
const liveTable = liveRoutes({} as Parameters<typeof liveRoutes>[0])
const doc = hostOpenApi({ port: 7777 }) as {
  openapi: string
  info: { version: string }
  servers: Array<{ url: string }>
  paths: Record<string, Record<string, any>>
  components: { schemas: Record<string, unknown>; responses: Record<string, any>; securitySchemes: Record<string, any> }
}
const docPath = (path: string) => path.replace(/:([A-Za-z]+)/g, '{$1}')

describe('the route table is the declaration', () => {
  it('implements every declared endpoint exactly once, and nothing else', () => {
    const declared = endpointsOf(api).map((e) => `${e.method} ${e.path}`)
    const implemented = table.map((r) => `${r.method} ${r.path}`)
    expect(new Set(declared).size).toBe(declared.length)
    expect([...implemented].sort()).toEqual([...declared].sort())
    for (const route of table) expect(endpointsOf(api)).toContain(route.value.endpoint)
  })

  it('declares an answer on every route: a Schema, or the media types of its bytes', () => {
    // A route added without an answer fails here (and does not typecheck: `endpoint` requires one).
    const unanswered = table.filter(
      ({ value }) => !(Schema.isSchema(value.answer) || value.answer._tag === 'BytesAnswer'),
    )
    expect(unanswered.map((r) => `${r.method} ${r.path}`)).toEqual([])
  })

  it('declares a Schema for every :name of every path, and none that is not in it', () => {
    for (const e of endpointsOf(api)) {
      const names = [...e.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1])
      expect(Object.keys(e.params).sort(), `${e.method} ${e.path}`).toEqual(names.sort())
    }
  })
})

describe('/v1/openapi.json', () => {
  it('validates as OpenAPI 3.1', async () => {
    const result = await new Validator().validate(structuredClone(doc))
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(doc.openapi).toBe('3.1.0')
  })

  it('every $ref in it points at something in it', () => {
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? []
    for (const ref of new Set(refs)) {
      const pointer = JSON.parse(`{${ref}}`).$ref as string
      const target = pointer
        .slice(2)
        .split('/')
        .reduce<any>((node, part) => node?.[part], doc)
      expect(target, pointer).toBeDefined()
    }
  })

  it('lists every route of the table with its parameters, request body, answer, refusals and security', () => {
    for (const { method, path, value } of table) {
      const op = doc.paths[docPath(path)]?.[method.toLowerCase()]
      expect(op, `${method} ${path}`).toBeDefined()
      if (value.body) expect(op.requestBody.content['application/json'].schema, `${method} ${path} body`).toBeDefined()
      else if (value.endpoint.rawBody)
        expect(op.requestBody.content[value.endpoint.rawBody], `${method} ${path} raw body`).toBeDefined()
      else expect(op.requestBody).toBeUndefined()
      const ok = op.responses['200']
      if (Schema.isSchema(value.answer))
        expect(ok.content['application/json'].schema, `${method} ${path} answer`).toBeDefined()
      else expect(Object.keys(ok.content)).toEqual(value.answer.media)
      // The edge's refusals reach every route (the order of checks in app.ts).
      for (const status of ['400', '403', '405', '413', '415', '421', '500', '503'])
        expect(op.responses[status], `${method} ${path} ${status}`).toBeDefined()
      if (value.access !== 'open') expect(op.responses['401']).toBeDefined()
      const pathParams = (op.parameters ?? [])
        .filter((p: { in: string }) => p.in === 'path')
        .map((p: { name: string }) => p.name)
      expect(pathParams).toEqual(Object.keys(value.endpoint.params))
      expect(op.security).toEqual(
        value.access === 'open'
          ? []
          : value.access === 'person'
            ? [{ personToken: [] }]
            : [{ sessionKey: [] }, { sessionKey: [], agentToken: [] }],
      )
    }
    const operations = Object.values(doc.paths).flatMap((ops) => Object.values(ops))
    expect(operations).toHaveLength(table.length + liveTable.length)
    // A client generator names its methods by operationId: one per operation.
    expect(new Set(operations.map((op) => op.operationId)).size).toBe(table.length + liveTable.length)
  })

  it(
    'describes bodies and answers with the Schemas themselves (a field the host refuses is not in the ' + 'document)',
    () => {
      const navigate = doc.paths['/v1/navigate']!.post
      expect(navigate.requestBody).toMatchObject({
        required: true,
        content: { 'application/json': { schema: { required: ['url'], additionalProperties: false } } },
      })
      expect(navigate.responses['200'].content['application/json'].schema.properties).toHaveProperty('dialog')
      expect(doc.paths['/v1/back']!.post.requestBody.required).toBe(false)
      expect(doc.paths['/v1/screenshot']!.get.parameters).toContainEqual({
        name: 'fullPage',
        in: 'query',
        required: false,
        schema: { type: 'string', enum: ['true', 'false'] },
      })
      expect(doc.paths['/v1/frame']!.get.responses['200'].headers).toHaveProperty('X-Frame-Seq')
      expect(doc.components.responses.Status405.headers).toHaveProperty('Allow')
      expect(doc.components.schemas.Error).toMatchObject({ required: ['error'] })
      expect(doc.components.securitySchemes.sessionKey).toEqual(
        expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Browser-Session' }),
      )
    },
  )

  it(
    "lists every route of the live view's table with its parameters, body, answer, refusals and sign-in, and " +
      'the table implements exactly what is declared',
    () => {
      const declared = endpointsOf(liveApi).map((e) => `${e.method} ${e.path}`)
      expect([...liveTable.map((r) => `${r.method} ${r.path}`)].sort()).toEqual([...declared].sort())
      for (const { method, path, value } of liveTable) {
        const where = `${method} ${path}`
        expect(endpointsOf(liveApi), where).toContain(value.endpoint)
        const op = doc.paths[docPath(path)]?.[method.toLowerCase()]
        expect(op, where).toBeDefined()
        if (value.endpoint.body)
          expect(op.requestBody.content['application/json'].schema, `${where} body`).toBeDefined()
        else expect(op.requestBody, where).toBeUndefined()
        expect(op.responses['200'].content['application/json'].schema, `${where} answer`).toBeDefined()
        for (const status of ['400', '403', '405', '413', '415', '421', '500'])
          expect(op.responses[status], `${where} ${status}`).toBeDefined()
        const pathParams = (op.parameters ?? []).filter((p: { in: string }) => p.in === 'path')
        expect(pathParams.map((p: { name: string }) => p.name)).toEqual(Object.keys(value.endpoint.params))
        if (value.endpoint.access === 'live') {
          expect(op.responses['401'], where).toBeDefined()
          expect(op.security, where).toEqual([{ liveSignIn: [] }])
        } else expect(op.security, where).toEqual([])
      }
      // The state the page shows is described part by part, with the Schemas the API encodes it with.
      expect(doc.components.schemas).toHaveProperty('LiveState')
      expect(doc.components.schemas).toHaveProperty('LiveConversation')
      expect(doc.components.schemas).toHaveProperty('ErrandView')
      expect(doc.components.securitySchemes.liveSignIn).toEqual(
        expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-errands-live' }),
      )
      const input = doc.paths['/live/api/conversations/{id}/input']!.post
      expect(input.requestBody).toMatchObject({ required: true })
      expect(input.responses['409']).toBeDefined()
    },
  )

  it('is served without a key or a token, naming the host it came from', async () => {
    const { app, calls } = testApp({ port: 7791 })
    const res = await app.request('/v1/openapi.json')
    expect(res.status).toBe(200)
    const served = (await res.json()) as typeof doc
    expect(served.servers).toEqual([{ url: 'http://127.0.0.1:7791' }])
    expect(served.info.version).toMatch(/^\d+\.\d+\.\d+/)
    expect(served.paths).toEqual(JSON.parse(JSON.stringify(doc.paths)))
    expect(calls).toEqual([])
  })

  it('keeps the order of checks in front of it: a foreign Host is 421, a POST 405 with Allow', async () => {
    const { app } = testApp()
    expect((await app.request('/v1/openapi.json', { headers: { host: 'evil.example:7777' } })).status).toBe(421)
    const post = await app.request('/v1/openapi.json', { method: 'POST' })
    expect(post.status).toBe(405)
    expect(post.headers.get('allow')).toBe('GET')
  })
})

// The router still finds each route by its declared method and path.
it('the router built from the table matches each declared path', () => {
  const router = new Router<Route>(table)
  for (const e of endpointsOf(api)) {
    const concrete = e.path.replace(/:([A-Za-z]+)/g, 'x1')
    const match = router.match(e.method, concrete)
    expect(match._tag, `${e.method} ${e.path}`).toBe('found')
  }
})
