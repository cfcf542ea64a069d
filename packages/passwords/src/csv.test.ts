import { describe, expect, it } from 'vitest'
import { parseCsv, readExport } from './csv.ts'

describe('password exports', () => {
  it("reads Chrome's export", () => {
    const chrome = 'name,url,username,password,note\nshop.example,https://shop.example/login,ann,"p,w ""1""",\n'
    expect(readExport(chrome)).toEqual({
      rows: [{ row: 1, url: 'https://shop.example/login', username: 'ann', password: 'p,w "1"', totp: undefined }],
      skipped: 0,
      refused: [],
    })
  })

  it("reads Firefox's export, skipping rows without a URL or password", () => {
    const firefox =
      '"url","username","password","httpRealm","formActionOrigin","guid","timeCreated","timeLastUsed",' +
      '"timePasswordChanged"\r\n"https://a.example","bob","x\ny","","https://a.example","{1}","1","1","1"\r\n' +
      '"https://b.example","carl","","","","{2}","1","1","1"\r\n'
    expect(readExport(firefox)).toEqual({
      rows: [{ row: 1, url: 'https://a.example', username: 'bob', password: 'x\ny', totp: undefined }],
      skipped: 1,
      refused: [{ row: 2, reason: 'no-password' }],
    })
  })

  it('reads a TOTP column, and refuses text with no url or password column or an open quote', () => {
    expect(
      readExport('login_uri,login_username,login_password,login_totp\nhttps://c.example,d,e,JBSWY3DPEHPK3PXP')!.rows[0]!
        .totp,
    ).toBe('JBSWY3DPEHPK3PXP')
    expect(readExport('a,b\n1,2')).toBeUndefined()
    expect(parseCsv('"open')).toBeUndefined()
  })
})
