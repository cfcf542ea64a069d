import { networkInterfaces } from 'node:os'
import { decide, defaultPolicy } from '@errands/guard'
import { describe, expect, it } from 'vitest'
import { changedPolicy, interfaceAddresses, MACHINE_READ_MS, withMachineAddresses } from './machine.ts'

describe("the machine's own addresses (G2)", () => {
  it('are every non-loopback address of the interfaces, IPv4 and IPv6', () => {
    const all = Object.values(networkInterfaces()).flatMap((l) => (l ?? []).map((i) => i.address))
    const own = interfaceAddresses()
    expect(own).toEqual(all.filter((a) => a !== '::1' && !a.startsWith('127.')))
    for (const address of own) {
      const host = address.includes(':') ? `[${address.split('%')[0]}]` : address
      if (!address.includes('%'))
        expect(decide(`http://${host}:8080/`, withMachineAddresses(defaultPolicy())).rule).toBe('own-address')
    }
  })

  it('are read again when the last reading is older than MACHINE_READ_MS, and keep what the policy named', () => {
    let list = ['192.0.2.2']
    let clock = 0
    const policy = withMachineAddresses(
      { ...defaultPolicy(), ownAddresses: ['203.0.113.9'] },
      () => list,
      () => clock,
    )
    expect(decide('http://198.51.100.5/', policy).rule).toBe('public')
    expect(decide('http://203.0.113.9/', policy).rule).toBe('own-address')
    list = ['192.0.2.2', '198.51.100.5']
    clock += MACHINE_READ_MS - 1
    expect(decide('http://198.51.100.5/', policy).rule).toBe('public')
    clock += 1
    expect(decide('http://198.51.100.5/', policy).rule).toBe('own-address')
    // An address gone from the interfaces is no longer the machine's.
    list = []
    clock += MACHINE_READ_MS
    expect(decide('http://192.0.2.2/', policy).rule).toBe('public')
    expect(withMachineAddresses(policy)).toBe(policy)
  })

  it('stay live in a changed policy (the egress adds its lanes to the engine ports)', () => {
    let list: Array<string> = []
    let clock = 0
    const policy = withMachineAddresses(
      defaultPolicy(),
      () => list,
      () => clock,
    )
    const changed = changedPolicy(policy, { ownPorts: [{ host: '127.0.0.1', port: 41000 }] })
    expect(decide('http://127.0.0.1:41000/', changed).rule).toBe('own-port')
    list = ['198.51.100.5']
    clock += MACHINE_READ_MS
    expect(decide('http://198.51.100.5/', changed).rule).toBe('own-address')
  })
})
