// The GICv3 ITS: its tables, its command queue, and the board's MSI lines through it.
// SPDX-License-Identifier: BSD-3-Clause

package virt

import (
	"gmpos/drivers/mmio"
	"gmpos/kernel/arch/arm64"
	"gmpos/kernel/mm"
)

// Layout of the ITS's memory block (one contiguous, zeroed allocation, 64 KiB-aligned): the LPI
// pending table first, which must be 64 KiB-aligned (§12.10.23), then the configuration table
// and the ITTs; the device and collection tables, one 64 KiB page each, and the command queue,
// each on a 64 KiB boundary (GITS_BASER's address with 64 KiB pages, §12.19.1; GITS_CBASER's
// bits 15:12 must be 0, §12.19.3, as Linux's naturally aligned queue has them).
const (
	itsOffPend  = 0
	itsOffProp  = 64 << 10
	itsOffITT   = itsOffProp + (1<<itsLPIBit - itsLPI) // after 8 KiB of configuration bytes
	itsOffDev   = 128 << 10
	itsOffColl  = itsOffDev + itsTableSize
	itsOffCmd   = itsOffColl + itsTableSize
	itsMemBytes = itsOffCmd + 64<<10
	itsSpins    = 1 << 22 // bounds every wait for the ITS
)

// initITS sets the ITS up for the MSI lines [first, first+n) and enables LPIs on the boot core:
// memory for every table, the redistributor's LPI tables (arm64.EnableLPIs), GITS_BASER for the
// device and collection tables, the command queue, then the ITS itself and collection 0 on the
// boot core. why is the reason it cannot, "" when the lines work. Boot, in InitIRQ.
func (b *Board) initITS(mapDevice func(pa, size uintptr) bool, first, n int) (why string) {
	s := &b.its
	if !mapDevice(b.gic.its, itsFrameSize) {
		return "ITS: cannot map its registers"
	}
	base := b.gic.its
	s.typer = decodeITSTyper(mmio.Read64(base + gitsTYPER))
	if why := s.typer.usable(); why != "" {
		return why
	}
	pa, ok := mm.AllocContiguous((itsMemBytes + 64<<10) / mm.PageSize)
	if !ok {
		return "ITS: no memory for its tables"
	}
	s.mem = (pa + 64<<10 - 1) &^ (64<<10 - 1)
	rd, proc, ok := arm64.EnableLPIs(s.mem+itsOffProp, s.mem+itsOffPend, itsLPIBit, first, n)
	if !ok {
		return "ITS: the boot core's redistributor has no LPIs"
	}
	s.target = proc
	if s.typer.pta {
		s.target = uint64(rd) >> 16
	}
	mmio.Write32(base+gitsCTLR, 0) // a 32-bit register (GITS_IIDR follows)
	for i := 0; mmio.Read32(base+gitsCTLR)&gitsCtlrQuiesent == 0; i++ {
		if i > itsSpins {
			return "ITS: not quiescent"
		}
	}
	for i := uintptr(0); i < 8; i++ {
		r := base + gitsBASER + 8*i
		v := mmio.Read64(r)
		var at uintptr
		switch v >> baserTypeShift & 7 {
		case baserTypeDev:
			at = s.mem + itsOffDev
		case baserTypeColl:
			at = s.mem + itsOffColl
		default:
			continue
		}
		// Flat tables of 64 KiB pages (page size 2), one page each: enough for itsDevIDs
		// devices and a collection at any entry size up to 256 bytes.
		mmio.Write64(r, baserValid|itsMemAttrs|uint64(v>>baserEntShift&0x1f)<<baserEntShift|uint64(at)|2<<baserPSShift)
		if got := mmio.Read64(r); got&baserValid == 0 || got>>baserPSShift&3 != 2 {
			return "ITS: a table register refused 64 KiB pages"
		}
	}
	mmio.Write64(base+gitsCBASER, baserValid|itsMemAttrs|uint64(s.mem+itsOffCmd)|(cmdQueue/4096-1))
	mmio.Write64(base+gitsCWRITER, 0)
	s.cwriter = 0
	mmio.Write32(base+gitsCTLR, gitsCtlrEnabled)
	s.base, s.first, s.n = base, first, n
	if !s.commands(mapc(0, s.target), syncCmd(s.target)) {
		s.base = 0
		return "ITS: the command queue stalled"
	}
	return ""
}

// commands queues cmds and waits until the ITS has read them all (GITS_CREADR reaches
// GITS_CWRITER); false if it stalls or does not get there within itsSpins reads. BKL or boot.
func (s *itsState) commands(cmds ...itsCmd) bool {
	q := mm.PhysToVirt(s.mem + itsOffCmd)
	for _, c := range cmds {
		for i, w := range c {
			*(*uint64)(ptr(q + uintptr(s.cwriter) + 8*uintptr(i))) = w
		}
		s.cwriter = (s.cwriter + cmdSize) % cmdQueue
	}
	arm64.CleanInvalidate(q, cmdQueue) // the ITS reads memory, not this core's cache
	mmio.Write64(s.base+gitsCWRITER, s.cwriter)
	for i := 0; i < itsSpins; i++ {
		r := mmio.Read64(s.base + gitsCREADR)
		if r&gitsCreadrStall != 0 {
			return false
		}
		if r&^0x1f == s.cwriter {
			return true
		}
	}
	return false
}

// itsMessage maps MSI line (LPI 8192+line-first) to the next event of the device with
// requester ID dev — MAPD with a fresh ITT on its first line — and returns the message that
// raises it. Boot.
func (b *Board) itsMessage(line int, dev uint16) (addr uint64, data uint32, ok bool) {
	s := &b.its
	if uint32(dev) >= itsDevIDs { // beyond what the device table was sized for (bus 0)
		return 0, 0, false
	}
	d := -1
	for i := range s.devs {
		if s.devs[i].used && s.devs[i].id == uint32(dev) {
			d = i
			break
		}
		if !s.devs[i].used && d < 0 {
			d = i
		}
	}
	if d < 0 || s.devs[d].used && s.devs[d].events >= itsEvents {
		return 0, 0, false
	}
	e := &s.devs[d]
	var cmds [3]itsCmd
	n := 0
	if !e.used {
		itt := s.mem + itsOffITT + uintptr(d)*512
		cmds[n] = mapd(uint32(dev), uint64(itt), 5) // 32 events
		n++
	}
	ev := uint32(e.events)
	cmds[n] = mapti(uint32(dev), ev, uint32(itsLPI+line-s.first), 0)
	cmds[n+1] = syncCmd(s.target)
	if !s.commands(cmds[:n+2]...) {
		return 0, 0, false
	}
	e.used, e.id, e.events = true, uint32(dev), e.events+1
	s.lines[line] = struct{ dev, ev uint32 }{uint32(dev), ev}
	return uint64(s.base + gitsTRANSLATER), ev, true
}

// itsEnable sets or clears MSI line's enable bit in the LPI configuration table, at the
// priority every interrupt has, and has the redistributor reread it (INV); false if the command
// queue stalled. BKL.
func (b *Board) itsEnable(line int, on bool) bool {
	s := &b.its
	cfg := mm.PhysToVirt(s.mem + itsOffProp + uintptr(line-s.first))
	v := byte(0xa0) // priority, as arm64's irqPriority; bit 1 is RES1 (§5.1.1)
	v |= 2
	if on {
		v |= 1
	}
	*(*byte)(ptr(cfg)) = v
	arm64.CleanInvalidate(cfg, 1)
	l := s.lines[line]
	return s.commands(inv(l.dev, l.ev), syncCmd(s.target))
}
