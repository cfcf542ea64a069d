// biome-ignore-all lint/suspicious/noExplicitAny: type-level matching over Schemas and endpoints of any shape
/**
 * One endpoint as declared, on any front (docs/edge.md, "Declared routes"; docs/adr/0025 and the ADR
 * "the declaration lives in the edge"): method, path, who may call it, and the Schemas of its path
 * parameters, query, body and answer. Nothing here runs: a front's route table gives each endpoint its
 * one call (the host's `routes.ts`, the live view's `routes.ts`), `openapi.ts` turns the declarations
 * into the OpenAPI document, and the host's `client.ts` into a typed client — one declaration, several
 * readers, so none of them can say something the others do not.
 *
 * @example
 * const url = endpoint('GET', '/v1/url', 'session', { summary: 'The active tab’s URL', answer: UrlAnswer })
 */
import type { Schema } from 'effect'

/**
 * Who may call an endpoint, in the words of its front (the host's `session`, `person`, `open`; the live
 * view's `live` sign-in): the front checks it, the document names its security scheme.
 */
export type Caller = string

/** The methods a declared route answers (HEAD is a GET without its body). */
export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

/**
 * An answer of bytes rather than JSON (a screenshot, a frame): its media types and the headers
 * that describe it.
 *
 * @example
 * bytesAnswer(['image/png'], 'The page as a PNG.')
 */
export interface BytesAnswer {
  readonly _tag: 'BytesAnswer'
  readonly media: ReadonlyArray<string>
  readonly description: string
  /** Header name → what it says. */
  readonly headers: Readonly<Record<string, string>>
}

/**
 * Declares a byte answer.
 *
 * @example
 * bytesAnswer(['image/jpeg', 'image/png'], 'The latest frame.', { 'X-Frame-Seq': 'frames so far' })
 */
export const bytesAnswer = (
  media: ReadonlyArray<string>,
  description: string,
  headers: Readonly<Record<string, string>> = {},
): BytesAnswer => ({
  _tag: 'BytesAnswer',
  media,
  description,
  headers,
})

/** Any Schema whose encoded side travels as JSON (or a path segment). */
type AnySchema = Schema.Schema<any, any, never>

/** The names of a path's `:name` segments: `'/v1/tabs/:id/activate'` → `'id'`. */
export type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never

/**
 * A declared endpoint. `B`, `Q` and `A` are the Schemas themselves (`undefined` for none), so a
 * reader gets both sides: the decoded type a handler sees and the JSON a client sends.
 */
export interface Endpoint<
  P extends string = string,
  B extends AnySchema | undefined = AnySchema | undefined,
  Q extends AnySchema | undefined = AnySchema | undefined,
  A extends AnySchema | BytesAnswer = AnySchema | BytesAnswer,
  W extends Caller = Caller,
> {
  readonly _tag: 'Endpoint'
  readonly method: Method
  readonly path: P
  readonly access: W
  /** One line for the document. */
  readonly summary: string
  /** Path parameters' Schemas, by name (they arrive as strings). */
  readonly params: Readonly<Record<string, Schema.Schema<any, string, never>>>
  /** `undefined`: no body (nothing, or `{}`). */
  readonly body: B
  /** `undefined`: no query parameters. */
  readonly query: Q
  readonly answer: A
  /** The media type of a body of raw bytes (a staged file, #25) instead of JSON; `undefined` for JSON or none. */
  readonly rawBody: string | undefined
  /** Statuses this endpoint answers besides the ones every route of its front and access can (`openapi.ts`). */
  readonly errors: ReadonlyArray<number>
}

/**
 * Declares an endpoint. Its answer is required: a route cannot be declared without saying what
 * it sends.
 *
 * @example
 * endpoint('POST', '/v1/navigate', 'session', { summary: 'Go to a URL', body: NavigateBody, answer: PageSummary,
 * errors: PAGE_ERRORS })
 */
export const endpoint = <
  const P extends string,
  A extends AnySchema | BytesAnswer,
  B extends AnySchema | undefined = undefined,
  Q extends AnySchema | undefined = undefined,
  const W extends Caller = Caller,
>(
  method: Method,
  path: P,
  access: W,
  spec: {
    readonly summary: string
    readonly answer: A
    readonly body?: B
    readonly query?: Q
    readonly errors?: ReadonlyArray<number>
    /** The body is raw bytes of this media type, read up to the app's byte cap (no JSON Schema). */
    readonly rawBody?: string
    /** One Schema per `:name` of the path (`decodeParams` decodes with them; the fronts' tests hold every path). */
    readonly params?: Readonly<Record<string, Schema.Schema<any, string, never>>>
  },
): Endpoint<P, B, Q, A, W> => ({
  _tag: 'Endpoint',
  method,
  path,
  access,
  summary: spec.summary,
  params: (spec.params ?? {}) as Endpoint<P, B, Q, A, W>['params'],
  body: spec.body as B,
  query: spec.query as Q,
  answer: spec.answer,
  rawBody: spec.rawBody,
  errors: spec.errors ?? [],
})

/** Is this value a declared endpoint? @example isEndpoint(api.url) // true */
export const isEndpoint = (u: unknown): u is Endpoint =>
  typeof u === 'object' && u !== null && (u as { _tag?: unknown })._tag === 'Endpoint'

/**
 * Every endpoint of a declaration, however it is nested, in declaration order.
 *
 * @example
 * endpointsOf(api).length // every route of the host
 */
export const endpointsOf = (declaration: object): ReadonlyArray<Endpoint> =>
  Object.values(declaration).flatMap((value) =>
    isEndpoint(value) ? [value] : typeof value === 'object' && value !== null ? endpointsOf(value) : [],
  )
