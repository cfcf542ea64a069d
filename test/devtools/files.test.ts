// Issue #27 (A1, S1, L7): a hostile DevTools client and the files of the engine's machine. Each
// errand has one folder of its own; every path a client names is resolved with realpath and must
// be a plain file inside it (uploads), and downloads land in it whatever folder was named. The
// attacks of #27 — a webkitdirectory walk of the temp dir and of the data dir, symlinks to the data
// dir and to /etc/passwd, a download into the store through a symlink, another errand's folder —
// are each refused, and the page reads 0 bytes; an upload and a download inside the folder work.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { eventually } from '../fixtures/processes.ts'
import { useDevToolsHost } from './harness.ts'
import { RawCdp } from './raw.ts'

const env = useDevToolsHost(1)

const folderOf = async (key: string): Promise<string> => {
  const { host } = env()
  const contextId = host.supervisor.contextOf(`session:${key}`)!
  return host.run(host.chromium.filesDir(contextId))
}

/** A page with a file input (`#f`) and a directory input (`#d`), and what it received. */
const PAGE = `
  document.body.innerHTML = '<input type=file id=f multiple><input type=file id=d webkitdirectory>'
  window.received = async (id) => {
    let bytes = 0, names = []
    for (const f of document.getElementById(id).files) {
      bytes += (await f.arrayBuffer()).byteLength
      names.push(f.name)
    }
    return JSON.stringify({ bytes, names })
  }
`

describe("files of the engine's machine: only the errand's own folder (#27)", () => {
  it('refuses every way out, the page reads 0 bytes; an upload inside the folder works', async () => {
    const { host } = env()
    const cdp = await RawCdp.open(await env().endpoint('fa'))
    await env().endpoint('fb')
    try {
      const folder = await folderOf('fa')
      const other = await folderOf('fb')
      expect(folder.startsWith(host.dataDir)).toBe(false)
      expect(folder).not.toBe(other)
      writeFileSync(join(other, 'b-secret.txt'), 'secret of b')
      writeFileSync(join(folder, 'ok.txt'), 'hello')
      symlinkSync(host.dataDir, join(folder, 'to-data'))
      symlinkSync('/etc/passwd', join(folder, 'to-passwd'))
      // A symlink any local user could make in the temp dir.
      const tmpLink = join(tmpdir(), `errands-evil-${randomBytes(4).toString('hex')}`)
      symlinkSync('/etc/passwd', tmpLink)
      execFileSync('mkfifo', [join(folder, 'fifo')])

      const { sessionId } = await cdp.newPage()
      await cdp.send('Runtime.evaluate', { expression: PAGE }, sessionId)
      const doc = await cdp.send('DOM.getDocument', {}, sessionId)
      const nodeOf = async (selector: string) =>
        (
          await cdp.send(
            'DOM.querySelector',
            { nodeId: (doc.result!.root as { nodeId: number }).nodeId, selector },
            sessionId,
          )
        ).result!.nodeId as number
      const [file, dir] = [await nodeOf('#f'), await nodeOf('#d')]
      const received = async (id: string): Promise<{ bytes: number; names: Array<string> }> => {
        const r = await cdp.send(
          'Runtime.evaluate',
          { expression: `received(${JSON.stringify(id)})`, awaitPromise: true, returnByValue: true },
          sessionId,
        )
        return JSON.parse((r.result!.result as { value: string }).value)
      }

      const attacks: Array<[string, number, Array<string>, RegExp]> = [
        ['walk of the temp dir', dir, [tmpdir()], /outside|folder may not/],
        ['walk of the data dir', dir, [host.dataDir], /outside/],
        ['walk of its own folder (a directory)', dir, [folder], /outside|folder may not/],
        ['symlink in its folder to the data dir', dir, [join(folder, 'to-data')], /outside/],
        ['symlink in its folder to /etc/passwd', file, [join(folder, 'to-passwd')], /outside/],
        ['symlink in the temp dir to /etc/passwd', file, [tmpLink], /outside/],
        ['the host token', file, [join(host.dataDir, 'host-token')], /outside|no such file/],
        ["another errand's folder", file, [join(other, 'b-secret.txt')], /outside/],
        ['a FIFO in its folder', file, [join(folder, 'fifo')], /plain files/],
        ['a good file next to a bad one', file, [join(folder, 'ok.txt'), '/etc/passwd'], /outside/],
      ]
      for (const [what, nodeId, files, reason] of attacks) {
        const answer = await cdp.send('DOM.setFileInputFiles', { files, nodeId }, sessionId)
        expect(answer.error?.message, what).toMatch(reason)
        expect(answer.error?.code, what).toBe(-32000)
      }
      // Dropped files are checked the same way.
      const drop = await cdp.send(
        'Input.dispatchDragEvent',
        { type: 'drop', x: 1, y: 1, data: { items: [], files: [tmpLink], dragOperationsMask: 1 } },
        sessionId,
      )
      expect(drop.error?.message).toMatch(/outside/)
      expect(await received('f')).toEqual({ bytes: 0, names: [] })
      expect(await received('d')).toEqual({ bytes: 0, names: [] })

      // Inside its folder: works.
      expect(
        (await cdp.send('DOM.setFileInputFiles', { files: [join(folder, 'ok.txt')], nodeId: file }, sessionId)).error,
      ).toBeUndefined()
      expect(await received('f')).toEqual({ bytes: 5, names: ['ok.txt'] })
    } finally {
      cdp.close()
    }
  })

  it("downloads land in the errand's folder, never in the store through a symlink", async () => {
    const { host } = env()
    const cdp = await RawCdp.open(await env().endpoint('fa'))
    try {
      const folder = await folderOf('fa')
      const store = join(host.dataDir, 'store')
      const before = existsSync(store) ? readdirSync(store) : []
      const storeLink = join(tmpdir(), `errands-store-${randomBytes(4).toString('hex')}`)
      symlinkSync(existsSync(store) ? store : host.dataDir, storeLink)
      const set = await cdp.send('Browser.setDownloadBehavior', {
        behavior: 'allow',
        downloadPath: storeLink,
        eventsEnabled: true,
      })
      expect(set.error).toBeUndefined()
      const { sessionId } = await cdp.newPage()
      await cdp.send(
        'Runtime.evaluate',
        {
          expression:
            `const a = document.createElement('a'); a.href = URL.createObjectURL(new ` +
            `Blob(['downloaded'])); a.download = 'got.txt'; document.body.append(a); a.click()`,
        },
        sessionId,
      )
      expect(await eventually(() => existsSync(join(folder, 'got.txt')), 15_000)).toBe(true)
      expect(
        await eventually(
          () => cdp.events.some((e) => e.method === 'Browser.downloadProgress' && e.params.state === 'completed'),
          15_000,
        ),
      ).toBe(true)
      expect(existsSync(join(storeLink, 'got.txt'))).toBe(false)
      expect(existsSync(store) ? readdirSync(store) : []).toEqual(before)
      expect(existsSync(join(host.dataDir, 'got.txt'))).toBe(false)
    } finally {
      cdp.close()
    }
  })

  it('removes the folder with the errand', async () => {
    const { host } = env()
    await env().endpoint('fc')
    const folder = await folderOf('fc')
    writeFileSync(join(folder, 'x.txt'), 'x')
    expect((await host.call('fc', 'DELETE', '/v1/session')).status).toBeLessThan(300)
    expect(await eventually(() => !existsSync(folder))).toBe(true)
  })
})
