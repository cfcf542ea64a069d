// biome-ignore-all lint/suspicious/noExplicitAny: type-level matching over Schemas and endpoints of any shape
// biome-ignore-all lint/complexity/noBannedTypes: `{}` is the empty input in the conditional types of a call's input
/**
 * A typed client of the host, derived from the declaration (`api.ts`): one method per endpoint,
 * its input typed by the endpoint's body, query and path parameters, its answer decoded with the
 * endpoint's answer Schema — strictly, so an answer the declaration does not describe (a field
 * more, a type changed) throws {@link AnswerMismatch} instead of passing unnoticed. It sends what
 * it is given as it is given: the host, not the client, judges a request.
 *
 * @example
 * const host = v1Client('http://127.0.0.1:7777', { key: 'agent-7' })
 * const page = await host.navigate({ body: { url: 'https://example.com/' } })
 * if (page.ok) page.body.title
 * await v1Client(base, { token }).person.sessions()
 */
import { Either, ParseResult, Schema } from 'effect'
import { api, type Api } from './api.ts'
import { type BytesAnswer, type Endpoint, endpointsOf, isEndpoint, type ParamNames, Router } from '@errands/edge'

/**
 * A 200 whose body the endpoint's answer Schema does not decode: the host and its declaration
 * disagree (a bug on one side).
 *
 * @example
 * new AnswerMismatch({ reason: 'schema', message: 'GET /v1/url: …' })
 */
export class AnswerMismatch extends Schema.TaggedError<AnswerMismatch>()('AnswerMismatch', {
  reason: Schema.Literal('schema', 'not-json'),
  message: Schema.String,
}) {}

/** How a client reaches the host and what it presents. */
export interface ClientOptions {
  /** `X-Browser-Session` for `session` endpoints. */
  readonly key?: string | undefined
  /** The person's token for `person` endpoints; an agent token (X2) for `session` ones. */
  readonly token?: string | undefined
  readonly agentToken?: string | undefined
  /** More headers on every call (`X-Browser-Proxy` …). */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** The transport (default `fetch`); an in-process app's `request` fits with a small adapter. */
  readonly fetch?: ((url: string, init: RequestInit) => Promise<Response>) | undefined
}

/** An error body as the host sends it. */
export interface ErrorAnswer {
  readonly error: { readonly code: string; readonly reason?: string; readonly message: string }
}

/** A reply: the declared answer on 200, the error body otherwise. `bytes` is the raw body. */
export type Reply<A> =
  | {
      readonly ok: true
      readonly status: number
      readonly headers: Headers
      readonly body: A
      readonly bytes: Uint8Array
    }
  | {
      readonly ok: false
      readonly status: number
      readonly headers: Headers
      readonly body: ErrorAnswer | undefined
      readonly bytes: Uint8Array
    }

type Encoded<S> = S extends Schema.Schema<any, infer I, any> ? I : never
type OptionalIfEmpty<K extends string, V> = {} extends V ? { readonly [k in K]?: V } : { readonly [k in K]: V }

/** What calling endpoint `E` takes: its body's JSON, its query and its path parameters. */
export type InputOf<E> =
  E extends Endpoint<infer P, infer B, infer Q, any>
    ? ([B] extends [undefined] ? {} : OptionalIfEmpty<'body', Encoded<B>>) &
        ([Q] extends [undefined] ? {} : { readonly query?: Encoded<Q> }) &
        ([ParamNames<P>] extends [never] ? {} : { readonly params: Readonly<Record<ParamNames<P>, string>> }) & {
          readonly raw?: Uint8Array
        }
    : never

/** What endpoint `E` answers on success: its answer Schema's type, or the bytes. */
export type AnswerOf<E> =
  E extends Endpoint<any, any, any, infer A> ? (A extends BytesAnswer ? Uint8Array : Schema.Schema.Type<A>) : never

/** One endpoint as a method. */
export type Call<E> = (
  ...input: {} extends InputOf<E> ? [input?: InputOf<E>] : [input: InputOf<E>]
) => Promise<Reply<AnswerOf<E>>>

/** The client: the declaration's shape, each endpoint a {@link Call}. */
export type Client<T> = {
  readonly [K in keyof T]: T[K] extends Endpoint<any, any, any, any> ? Call<T[K]> : Client<T[K]>
}

/** Loose input, for {@link call} on an endpoint known only at run time. */
export interface AnyInput {
  readonly body?: unknown
  readonly query?: Readonly<Record<string, string>> | undefined
  readonly params?: Readonly<Record<string, string>> | undefined
  /** The raw body of an endpoint declared with `rawBody` (a staged file, #25). */
  readonly raw?: Uint8Array | undefined
}

/**
 * Calls one endpoint of the host at `base`.
 *
 * @example
 * const reply = await call('http://127.0.0.1:7777', api.closeTab, { params: { id: 'abc-t2' } }, { key: 'agent-7' })
 */
export const call = async <E extends Endpoint>(
  base: string,
  endpoint: E,
  input: InputOf<E> | AnyInput,
  options: ClientOptions = {},
): Promise<Reply<AnswerOf<E>>> => {
  const given = input as AnyInput
  const path = endpoint.path.replace(/:([A-Za-z]+)/g, (_, name: string) =>
    encodeURIComponent(given.params?.[name] ?? ''),
  )
  const query =
    given.query && Object.keys(given.query).length > 0
      ? `?${new URLSearchParams(given.query as Record<string, string>)}`
      : ''
  const token =
    endpoint.access === 'person' ? options.token : endpoint.access === 'session' ? options.agentToken : undefined
  const headers: Record<string, string> = {
    ...(endpoint.access === 'session' && options.key !== undefined ? { 'x-browser-session': options.key } : {}),
    ...(given.body !== undefined ? { 'content-type': 'application/json' } : {}),
    ...(given.raw !== undefined ? { 'content-type': endpoint.rawBody ?? 'application/octet-stream' } : {}),
    ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
    ...options.headers,
  }
  const send = options.fetch ?? ((url: string, init: RequestInit) => fetch(url, init))
  const res = await send(`${base}${path}${query}`, {
    method: endpoint.method,
    headers,
    ...(given.body !== undefined ? { body: JSON.stringify(given.body) } : {}),
    ...(given.raw !== undefined ? { body: given.raw as Uint8Array<ArrayBuffer> } : {}),
  })
  const bytes = new Uint8Array(await res.arrayBuffer())
  const isJson = (res.headers.get('content-type') ?? '').includes('json')
  const parsed = (): unknown => JSON.parse(new TextDecoder().decode(bytes))
  const where = `${endpoint.method} ${endpoint.path}`
  if (res.status !== 200) {
    return {
      ok: false,
      status: res.status,
      headers: res.headers,
      body: isJson ? (parsed() as ErrorAnswer) : undefined,
      bytes,
    }
  }
  const answer = endpoint.answer
  if ('_tag' in answer && answer._tag === 'BytesAnswer') {
    return { ok: true, status: res.status, headers: res.headers, body: bytes as AnswerOf<E>, bytes }
  }
  if (!isJson)
    throw new AnswerMismatch({
      reason: 'not-json',
      message: `${where} answered ${res.headers.get('content-type')}, not JSON`,
    })
  const decoded = decodeAnswer(endpoint, parsed())
  if (decoded._tag === 'Left') throw decoded.left
  return { ok: true, status: res.status, headers: res.headers, body: decoded.right as AnswerOf<E>, bytes }
}

/** A 200's JSON decoded strictly with the endpoint's answer Schema (a field more is a mismatch too). */
const decodeAnswer = (endpoint: Endpoint, json: unknown): Either.Either<unknown, AnswerMismatch> =>
  Either.mapLeft(
    Schema.decodeUnknownEither(endpoint.answer as Schema.Schema<unknown, unknown>, { onExcessProperty: 'error' })(json),
    (e) =>
      new AnswerMismatch({
        reason: 'schema',
        message:
          `${endpoint.method} ${endpoint.path}: the answer does not fit its declared Schema: ` +
          `${ParseResult.TreeFormatter.formatErrorSync(e)}`,
      }),
  )

const declared = new Router(endpointsOf(api).map((e) => ({ method: e.method, path: e.path, value: e })))

/**
 * The declared endpoint a method and path name, with the path's parameters (percent-decoded), or
 * `undefined` when none is declared so (HEAD included: it is a GET without its body).
 *
 * @example
 * endpointAt('POST', '/v1/tabs/abc-t2/activate') // { endpoint: api.activateTab, params: { id: 'abc-t2' } }
 */
export const endpointAt = (
  method: string,
  pathname: string,
): { readonly endpoint: Endpoint; readonly params: Readonly<Record<string, string>> } | undefined => {
  const match = declared.match(method, pathname)
  return match._tag === 'found' && match.value.method === method
    ? { endpoint: match.value, params: match.params }
    : undefined
}

/**
 * For a client with its own transport (the soak's timed keep-alive calls): what is wrong with a
 * 200's parsed JSON body for `method` and `pathname`, in words, or `undefined` when it fits the
 * declared answer — or when no JSON answer is declared there.
 *
 * @example
 * answerMismatch('GET', '/v1/url', { url: 'about:blank', extra: 1 }) // 'GET /v1/url: the answer does not fit …'
 */
export const answerMismatch = (method: string, pathname: string, json: unknown): string | undefined => {
  const found = endpointAt(method, pathname)
  if (found === undefined || !Schema.isSchema(found.endpoint.answer)) return undefined
  const decoded = decodeAnswer(found.endpoint, json)
  return decoded._tag === 'Left' ? decoded.left.message : undefined
}

const build = (declaration: object, base: string, options: ClientOptions): object =>
  Object.fromEntries(
    Object.entries(declaration).map(([name, value]) => [
      name,
      isEndpoint(value)
        ? (input: AnyInput = {}) => call(base, value, input, options)
        : build(value as object, base, options),
    ]),
  )

/**
 * A client of every endpoint of the host at `base`, as `api.ts` names them.
 *
 * @example
 * const k1 = v1Client('http://127.0.0.1:7777', { key: 'k1' })
 * await k1.activateTab({ params: { id: 'abc-t2' } })
 * await v1Client(base, { token }).person.main.navigate({ body: { url } })
 */
export const v1Client = (base: string, options: ClientOptions = {}): Client<Api> =>
  build(api, base, options) as Client<Api>
