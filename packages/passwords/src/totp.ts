/**
 * TOTP (RFC 6238) with `otpauth` 9: a secret is kept as its `otpauth://totp/…` URI (digits,
 * period and algorithm with it), and a code is computed when the request that carries its
 * stand-in leaves (W3) — never earlier, so it is always the current one.
 *
 * @example
 * const uri = parseTotp('JBSWY3DPEHPK3PXP')!  // 'otpauth://totp/Errands?secret=JBSWY3DPEHPK3PXP&…'
 * totpCode(uri, Date.now())                    // '492039'
 */
import { Secret, TOTP, URI } from 'otpauth'

/**
 * A TOTP secret as the person gives it — base32 (spaces and `=` allowed, any case) or an
 * `otpauth://totp/` URI — as the URI the vault keeps. Undefined when it is neither.
 *
 * @example
 * parseTotp('jbsw y3dp ehpk 3pxp') // 'otpauth://totp/Errands?…'
 */
export const parseTotp = (text: string): string | undefined => {
  const t = text.trim()
  if (t === '' || t.length > 2048) return undefined
  try {
    if (/^otpauth:\/\//i.test(t)) {
      const otp = URI.parse(t)
      return otp instanceof TOTP && otp.secret.bytes.length > 0 ? otp.toString() : undefined
    }
    const base32 = t.replace(/[\s=]/g, '').toUpperCase()
    if (!/^[A-Z2-7]{16,}$/.test(base32)) return undefined
    return new TOTP({ issuer: 'Errands', label: 'sign-in', secret: Secret.fromBase32(base32) }).toString()
  } catch {
    return undefined
  }
}

/**
 * The code a TOTP secret (as {@link parseTotp} keeps it) gives at `at` (ms since the epoch).
 *
 * @example
 * totpCode(uri, Date.now()) // '492039'
 */
export const totpCode = (uri: string, at: number): string => {
  const otp = URI.parse(uri)
  if (!(otp instanceof TOTP)) throw new Error('not a TOTP secret')
  return otp.generate({ timestamp: at })
}

/**
 * How many digits a TOTP secret's codes have (6 by default): its stand-in has as many.
 *
 * @example
 * totpDigits(uri) // 6
 */
export const totpDigits = (uri: string): number => {
  const otp = URI.parse(uri)
  return otp instanceof TOTP ? otp.digits : 6
}
