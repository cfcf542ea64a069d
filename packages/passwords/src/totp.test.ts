import { TOTP } from 'otpauth'
import { describe, expect, it } from 'vitest'
import { parseTotp, totpCode, totpDigits } from './totp.ts'

describe('TOTP (RFC 6238)', () => {
  it('takes base32 in any spacing and case, or an otpauth URI, and computes the code otpauth verifies', () => {
    const uri = parseTotp('jbsw y3dp ehpk 3pxp')!
    expect(uri).toMatch(/^otpauth:\/\/totp\//)
    const at = 1_700_000_000_000
    const code = totpCode(uri, at)
    expect(code).toMatch(/^\d{6}$/)
    expect(TOTP.validate({ token: code, secret: new TOTP({ secret: 'JBSWY3DPEHPK3PXP' }).secret, timestamp: at })).toBe(
      0,
    )
    const eight = parseTotp('otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&digits=8&period=30')!
    expect(totpDigits(eight)).toBe(8)
    expect(totpCode(eight, at)).toMatch(/^\d{8}$/)
  })

  it('refuses what is no secret', () => {
    for (const bad of ['', 'hello', 'JBSW1', 'otpauth://hotp/x?secret=JBSWY3DPEHPK3PXP&counter=1', 'https://x'])
      expect(parseTotp(bad), bad).toBeUndefined()
  })
})
