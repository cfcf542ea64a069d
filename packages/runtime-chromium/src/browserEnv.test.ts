import { describe, expect, it } from 'vitest'
import { browserEnv } from './browserEnv.ts'

describe('browserEnv: what our Chromiums start with', () => {
  it("passes only the allow-list, every LC_*, its own TMPDIR and the owner mark — never a host's secret", () => {
    const env = browserEnv(
      {
        PATH: '/usr/bin',
        HOME: '/home/errands',
        LANG: 'de_DE.UTF-8',
        LC_TIME: 'en_GB.UTF-8',
        TZ: 'Europe/Berlin',
        XDG_RUNTIME_DIR: '/run/user/1000',
        TMPDIR: '/tmp',
        ERRANDS_UPSTREAM_PROXY: 'http://user:proxy-pass@proxy.example:8080',
        ERRANDS_DATABASE_URL: 'postgres://errands:db-pass@db.example/errands',
        ERRANDS_TOKEN: 'admin-token',
        http_proxy: 'http://u:p@proxy.example:3128',
        OPENAI_API_KEY: 'sk-secret',
        LD_PRELOAD: '/tmp/evil.so',
        NOTHING: undefined,
      },
      '/tmp/errands-chromium-1',
      '/var/lib/errands',
    )
    expect(env).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/errands',
      LANG: 'de_DE.UTF-8',
      LC_TIME: 'en_GB.UTF-8',
      TZ: 'Europe/Berlin',
      XDG_RUNTIME_DIR: '/run/user/1000',
      TMPDIR: '/tmp/errands-chromium-1',
      ERRANDS_OWNER: '/var/lib/errands',
    })
  })
})
