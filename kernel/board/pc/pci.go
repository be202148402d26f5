// PCI configuration space on the PC: ECAM where the MCFG says, else the ports 0xcf8/0xcfc.
// SPDX-License-Identifier: BSD-3-Clause

package pc

import (
	"gmpos/drivers/pci"
	"gmpos/kernel/arch/amd64"
)

// Configuration mechanism #1 (PCI Local Bus 3.0 §3.2.2.3.2): write the function's address to
// CONFIG_ADDRESS, then move the dword through CONFIG_DATA. It reaches the first 256 bytes of
// each function, on every PC; QEMU's pc (i440FX) machine has nothing else. q35 also has ECAM
// (PCIe base 4.0 §7.2.2), which reaches all 4 KiB (the PCI Express extended capabilities) with
// one access instead of two, and is preferred when the MCFG lists it.
const (
	portConfigAddress = 0xcf8
	portConfigData    = 0xcfc
	configEnable      = 1 << 31 // CONFIG_ADDRESS bit 31: the next CONFIG_DATA access is a configuration cycle
)

// ecamMaxBuses is how many buses' ECAM windows PCIConfig maps: 1 MiB each, so 8 MiB of 4 KiB
// device pages (four page-table frames) instead of the 256 MiB (128 frames) of a full segment.
// QEMU puts its devices on bus 0 and, behind a bridge or root port, on the next few buses; the
// firmware numbers buses from 0 upward.
const ecamMaxBuses = 8

// portConfig is mechanism #1 as a pci.Config. It is a value without fields: converting it to the
// interface stores no data and allocates nothing (the compiler points the interface at its zero
// object), so it can be handed out at boot. The address/data pair is a two-step sequence:
// callers serialise (boot; the BKL later) — and nothing else in the kernel touches 0xcf8.
type portConfig struct{}

func (portConfig) Read32(a pci.Addr, off uint16) uint32 {
	if a.Dev >= 32 || a.Fn >= 8 || off >= 256 {
		return 0xffffffff
	}
	amd64.Outl(portConfigAddress, configAddress(a, off))
	return amd64.Inl(portConfigData)
}

func (portConfig) Write32(a pci.Addr, off uint16, v uint32) {
	if a.Dev >= 32 || a.Fn >= 8 || off >= 256 {
		return
	}
	amd64.Outl(portConfigAddress, configAddress(a, off))
	amd64.Outl(portConfigData, v)
}

// configAddress is the CONFIG_ADDRESS value for the dword at off of function a (Figure 3-2:
// enable 31, bus 23:16, device 15:11, function 10:8, register 7:2).
func configAddress(a pci.Addr, off uint16) uint32 {
	return configEnable | uint32(a.Bus)<<16 | uint32(a.Dev)<<11 | uint32(a.Fn)<<8 | uint32(off&0xfc)
}

// portConfigPresent reports whether a host bridge answers at CONFIG_ADDRESS: a register that
// keeps the enable bit written to it (Linux's pci_check_type1 test). The old value is put back.
func portConfigPresent() bool {
	old := amd64.Inl(portConfigAddress)
	amd64.Outl(portConfigAddress, configEnable)
	ok := amd64.Inl(portConfigAddress) == configEnable
	amd64.Outl(portConfigAddress, old)
	return ok
}

// PCIConfig returns the PCI configuration mechanism: ECAM over the MCFG's window of segment 0,
// after mapping the first ecamMaxBuses buses of it with mapDevice (the mechanism then reports
// the buses above as absent), or the ports when there is no MCFG or its window cannot be
// mapped. false: neither exists. The interface holds a pointer into b (the kernel's statically
// allocated board) or the field-less portConfig, so nothing is allocated. Boot only.
func (b *Board) PCIConfig(mapDevice func(pa, size uintptr) bool) (pci.Config, bool) {
	if m := &b.madt.mcfg; m.valid {
		end := m.end
		if end-m.start >= ecamMaxBuses {
			end = m.start + ecamMaxBuses - 1
		}
		lo := uintptr(m.base) + uintptr(m.start)<<20
		if mapDevice(lo, uintptr(end-m.start+1)<<20) {
			m.ecam = pci.ECAM{Base: uintptr(m.base), StartBus: m.start, EndBus: end}
			return &m.ecam, true
		}
	}
	if portConfigPresent() {
		return portConfig{}, true
	}
	return nil, false
}

// ioapicBase is the bottom of the range the chipset keeps for the I/O APIC, HPET, local APIC
// and firmware flash, up to 4 GiB (Intel ICH9 datasheet §9.4, "Memory Map"; the same on the
// PIIX machine): PCI memory stays below it.
const ioapicBase = 0xfec0_0000

// PCIWindow is the 32-bit PCI memory hole: from the end of RAM below 4 GiB, or of the ECAM
// window if that lies above it (q35 puts it at 0xb000_0000), up to the I/O APIC. A minimal
// firmware (qboot) assigns no BARs and leaves the kernel to: SeaBIOS picks from the same
// hole. Boot, after Probe.
func (b *Board) PCIWindow() pci.Window {
	lo := uint64(1 << 20)
	for _, r := range b.ram[:b.nram] {
		if end := uint64(r.Base + r.Len); r.Base < ioapicBase && end > lo {
			lo = end
		}
	}
	if m := &b.madt.mcfg; m.valid {
		ecamEnd := m.base + uint64(m.end)<<20 + 1<<20
		if ecamEnd > lo && m.base < ioapicBase {
			lo = ecamEnd
		}
	}
	if lo >= ioapicBase {
		return pci.Window{}
	}
	return pci.Window{Lo: lo, Hi: ioapicBase}
}
