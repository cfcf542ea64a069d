/**
 * Reading a password export (W1): Chrome's (`name,url,username,password,note`), Firefox's
 * (`"url","username","password","httpRealm",…`) and any CSV whose header names a URL, a user
 * name and a password column the same way (Bitwarden's `login_uri`, `login_username`,
 * `login_password`, `login_totp`). Quoted fields, doubled quotes and line breaks inside quotes
 * are RFC 4180's.
 *
 * @example
 * const { rows, skipped } = readExport('name,url,username,password\nShop,https://shop.example/,ann,pw\n')
 * rows[0] // { url: 'https://shop.example/', username: 'ann', password: 'pw', totp: undefined }
 */

/** One sign-in read from an export (not yet checked). */
export interface ExportedSignIn {
  /** Which row of the export it is (1: the first after the header). */
  readonly row: number
  readonly url: string
  readonly username: string
  readonly password: string
  readonly totp: string | undefined
}

/** The records of a CSV text (RFC 4180), each a list of fields; undefined when a quote is never closed. */
export const parseCsv = (text: string): Array<Array<string>> | undefined => {
  const records: Array<Array<string>> = []
  let record: Array<string> = []
  let field = ''
  let quoted = false
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0
  for (; i < text.length; i++) {
    const c = text[i]!
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"'
        i++
      } else if (c === '"') quoted = false
      else field += c
    } else if (c === '"' && field === '') quoted = true
    else if (c === ',') {
      record.push(field)
      field = ''
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++
      record.push(field)
      records.push(record)
      record = []
      field = ''
    } else field += c
  }
  if (quoted) return undefined
  if (field !== '' || record.length > 0) {
    record.push(field)
    records.push(record)
  }
  return records.filter((r) => !(r.length === 1 && r[0] === ''))
}

const COLUMNS = {
  url: ['url', 'login_uri', 'origin', 'website', 'hostname'],
  username: ['username', 'login_username', 'user', 'login'],
  password: ['password', 'login_password'],
  totp: ['totp', 'otp', 'login_totp', 'otpauth'],
} as const

/**
 * A row of an export that was not taken, and why: its number (1: the first after the header) and
 * a reason that never quotes its values (W4).
 */
export interface RefusedRow {
  readonly row: number
  readonly reason: 'no-url' | 'no-password' | 'site' | 'username' | 'password' | 'totp'
}

/**
 * The sign-ins of an export, and how many of its rows had no URL or no password (and which).
 * Undefined when the text is no CSV or its header names no URL or password column.
 *
 * @example
 * readExport('"url","username","password"\n"https://shop.example","ann","pw"')!.rows.length // 1
 */
export const readExport = (
  text: string,
):
  | {
      readonly rows: ReadonlyArray<ExportedSignIn>
      readonly skipped: number
      readonly refused: ReadonlyArray<RefusedRow>
    }
  | undefined => {
  const records = parseCsv(text)
  if (records === undefined || records.length === 0) return undefined
  const header = records[0]!.map((h) => h.trim().toLowerCase())
  const col = (names: ReadonlyArray<string>) => header.findIndex((h) => names.includes(h))
  const at = {
    url: col(COLUMNS.url),
    username: col(COLUMNS.username),
    password: col(COLUMNS.password),
    totp: col(COLUMNS.totp),
  }
  if (at.url < 0 || at.password < 0) return undefined
  const rows: Array<ExportedSignIn> = []
  const refused: Array<RefusedRow> = []
  for (const [i, r] of records.slice(1).entries()) {
    const url = (r[at.url] ?? '').trim()
    const password = r[at.password] ?? ''
    if (url === '' || password === '') {
      refused.push({ row: i + 1, reason: url === '' ? 'no-url' : 'no-password' })
      continue
    }
    const totp = at.totp >= 0 ? (r[at.totp] ?? '').trim() : ''
    const username = at.username >= 0 ? (r[at.username] ?? '') : ''
    rows.push({ row: i + 1, url, username, password, totp: totp || undefined })
  }
  return { rows, skipped: refused.length, refused }
}
