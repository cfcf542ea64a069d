/**
 * The Passwords panel (W1, docs/passwords.md): the person's saved sign-ins — site, user name,
 * whether a TOTP secret is kept — with add, edit and remove, and the import of a Chrome or Firefox
 * CSV export. A password or TOTP secret typed here goes to the host once and is never shown again:
 * the host answers without it, and the form's fields are emptied after each save (W4).
 *
 * @example
 * <PasswordsPanel call={call} />
 */
import { useEffect, useState } from 'preact/hooks'
import type { LiveImportReport, LivePasswordEntry } from '../src/passwords.ts'
import { paths } from '../src/protocol.ts'

/** The page's JSON call (main.tsx's, with the sign-in header). */
export type Call = (
  path: string,
  method: string,
  body?: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: each caller reads the answer's fields it expects
) => Promise<{ ok: boolean; status: number; json: any }>

const REFUSED: Record<string, string> = {
  'no-url': 'no URL',
  'no-password': 'no password',
  site: 'the URL is no http(s) site',
  username: 'the user name has a control character',
  password: 'the password is empty',
  totp: 'the TOTP secret is neither base32 nor an otpauth:// URI',
}

const EMPTY = { site: '', username: '', password: '', totp: '', forgetTotp: false }

const errorOf = (r: { status: number; json: { error?: { message?: string } } }) =>
  r.json?.error?.message ?? `The host answered ${r.status}.`

/** What an import did, in words: counts, then each refused row and why (never its values). */
const ImportOutcome = ({ report }: { report: Required<LiveImportReport> }) => (
  <div class="import-report" role="status">
    <p>
      Imported <strong>{report.added + report.updated}</strong> ({report.added} new, {report.updated} updated)
      {report.refused.length > 0 ? `; ${report.refused.length} refused:` : '.'}
    </p>
    {report.refused.length > 0 && (
      <ul>
        {report.refused.map((r) => (
          <li key={r.row} data-row={r.row}>
            row {r.row}: {REFUSED[r.reason] ?? r.reason}
          </li>
        ))}
      </ul>
    )}
  </div>
)

/** The panel. */
export const PasswordsPanel = ({ call }: { call: Call }) => {
  const [entries, setEntries] = useState<ReadonlyArray<LivePasswordEntry> | null>(null)
  const [form, setForm] = useState(EMPTY)
  const [editing, setEditing] = useState<LivePasswordEntry | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [report, setReport] = useState<Required<LiveImportReport> | null>(null)
  const [busy, setBusy] = useState(false)

  const load = async () => {
    const r = await call(paths.passwords, 'GET')
    if (r.ok) setEntries(r.json.passwords as ReadonlyArray<LivePasswordEntry>)
    else setError(errorOf(r))
  }
  useEffect(() => void load(), [])

  const done = async (r: { ok: boolean; status: number; json: unknown }) => {
    setBusy(false)
    if (!r.ok) return setError(errorOf(r as Parameters<typeof errorOf>[0]))
    setError(null)
    // The secrets leave the page's state once saved: nothing typed is kept or shown again.
    setForm(EMPTY)
    setEditing(null)
    await load()
  }

  const save = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setReport(null)
    if (editing === null) {
      const totp = form.totp.trim() === '' ? undefined : form.totp
      return done(
        await call(paths.passwords, 'POST', {
          site: form.site,
          username: form.username,
          password: form.password,
          ...(totp === undefined ? {} : { totp }),
        }),
      )
    }
    // Only what the person changed: a blank password or TOTP field keeps the saved one.
    const patch: Record<string, unknown> = {}
    if (form.site !== editing.site) patch.site = form.site
    if (form.username !== editing.username) patch.username = form.username
    if (form.password !== '') patch.password = form.password
    if (form.forgetTotp) patch.totp = null
    else if (form.totp.trim() !== '') patch.totp = form.totp
    return done(await call(paths.password(editing.id), 'PUT', patch))
  }

  const remove = async (entry: LivePasswordEntry) => {
    setBusy(true)
    setReport(null)
    await done(await call(paths.password(entry.id), 'DELETE'))
  }

  const importFile = async (input: HTMLInputElement) => {
    const file = input.files?.[0]
    if (!file) return
    setBusy(true)
    setReport(null)
    const r = await call(paths.passwordsImport, 'POST', { csv: await file.text() })
    input.value = ''
    await done(r)
    if (r.ok) setReport(r.json as Required<LiveImportReport>)
  }

  const field = (name: keyof typeof EMPTY) => (e: Event) => {
    const t = e.target as HTMLInputElement
    setForm({ ...form, [name]: t.type === 'checkbox' ? t.checked : t.value })
  }

  return (
    <section class="passwords" aria-label="Passwords">
      <h2>Passwords</h2>
      <p class="muted">
        Errands sign in with these; an agent sees the site and user name, never the password (it fills a stand-in).
      </p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {entries === null ? (
        <p class="muted">Loading…</p>
      ) : entries.length === 0 ? (
        <p class="muted">No saved passwords.</p>
      ) : (
        <table class="password-list">
          <thead>
            <tr>
              <th>Site</th>
              <th>User name</th>
              <th>TOTP</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {entries.map((p) => (
              <tr key={p.id} data-password={p.id} data-site={p.site} class={editing?.id === p.id ? 'selected' : ''}>
                <td>{p.site}</td>
                <td>{p.username}</td>
                <td>{p.totp ? 'yes' : '—'}</td>
                <td>
                  <button
                    type="button"
                    class="link"
                    disabled={busy}
                    onClick={() => {
                      setEditing(p)
                      setForm({ ...EMPTY, site: p.site, username: p.username })
                    }}
                  >
                    Edit
                  </button>{' '}
                  <button type="button" class="danger" disabled={busy} onClick={() => void remove(p)}>
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form class="password-form" onSubmit={(e) => void save(e)} autocomplete="off">
        <h3>{editing ? `Edit ${editing.site}` : 'Add a password'}</h3>
        <label>
          Site
          <input name="site" required value={form.site} onInput={field('site')} placeholder="shop.example" />
        </label>
        <label>
          User name
          <input name="username" value={form.username} onInput={field('username')} autocomplete="off" />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            required={editing === null}
            value={form.password}
            onInput={field('password')}
            autocomplete="new-password"
            placeholder={editing ? 'unchanged' : ''}
          />
        </label>
        <label>
          TOTP secret (optional)
          <input
            name="totp"
            type="password"
            value={form.totp}
            onInput={field('totp')}
            autocomplete="off"
            placeholder={editing?.totp ? 'unchanged' : 'base32 or otpauth://'}
          />
        </label>
        {editing?.totp && (
          <label class="check">
            <input name="forgetTotp" type="checkbox" checked={form.forgetTotp} onChange={field('forgetTotp')} />
            Forget the TOTP secret
          </label>
        )}
        <button type="submit" disabled={busy}>
          {editing ? 'Save' : 'Add'}
        </button>
        {editing && (
          <button
            type="button"
            class="link"
            onClick={() => {
              setEditing(null)
              setForm(EMPTY)
            }}
          >
            Cancel
          </button>
        )}
      </form>
      <label class="import">
        Import a Chrome or Firefox export (.csv)
        <input
          name="csv"
          type="file"
          accept=".csv,text/csv"
          disabled={busy}
          onChange={(e) => void importFile(e.target as HTMLInputElement)}
        />
      </label>
      {report && <ImportOutcome report={report} />}
    </section>
  )
}
