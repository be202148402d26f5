// The GICv3 ITS: message interrupts with a GICv3 (the pure part: registers and commands).
// SPDX-License-Identifier: BSD-3-Clause

package virt

// With GICv3 (-M virt,gic-version=3) QEMU's virt has no GICv2m frame but an Interrupt
// Translation Service (hw/intc/arm_gicv3_its.c, at 0x0808_0000; IHI 0069 chapter 5). A PCI
// function's MSI-X write goes to the ITS's GITS_TRANSLATER with an event ID as its data; the ITS
// knows the writer by its device ID — on virt the PCI requester ID, bus<<8 | device<<3 |
// function (the tree's msi-map is the identity) — and translates (device, event) through
// tables in memory into an LPI and a collection, and the collection into a redistributor:
//
//   - a device table: device ID → its interrupt translation table (ITT), by MAPD;
//   - each device's ITT: event → LPI and collection, by MAPTI;
//   - a collection table: collection → redistributor, by MAPC.
//
// The kernel writes those mappings as commands, 32 bytes each, into a command queue in memory
// and moves GITS_CWRITER past them; the ITS executes them and moves GITS_CREADR (§5.3). The
// device and collection tables are memory the ITS asks for through GITS_BASER<n> and formats
// itself. Then the redistributor (kernel/arch/arm64, lpi.go) reads each LPI's enable bit and
// priority from the LPI configuration table; after changing a byte there the kernel issues INV.
//
// The board offers its MSI lines as LPIs 8192.. (one collection, 0, on the boot core, where
// every device interrupt goes): line itsFirst+k is LPI 8192+k. A device's events are numbered in
// the order the kernel asks for messages (MSIMessage): the first line a device gets is its
// event 0.

// ITS registers (§12.19) and the translation frame's register (the second 64 KiB frame).
const (
	gitsCTLR       = 0x0000
	gitsTYPER      = 0x0008
	gitsCBASER     = 0x0080
	gitsCWRITER    = 0x0088
	gitsCREADR     = 0x0090
	gitsBASER      = 0x0100 // 8 of them, 8 bytes apart
	gitsTRANSLATER = 0x10040

	itsFrameSize = 0x20000 // the control frame and the translation frame

	gitsCtlrEnabled  = 1 << 0
	gitsCtlrQuiesent = 1 << 31
	gitsCreadrStall  = 1 << 0

	// GITS_BASER fields (§12.19.1).
	baserValid     = 1 << 63
	baserTypeShift = 56
	baserEntShift  = 48
	baserPSShift   = 8 // page size: 0 = 4 KiB, 1 = 16 KiB, 2 = 64 KiB
	baserTypeDev   = 1
	baserTypeColl  = 4
	// The tables' attributes, as the kernel maps RAM: InnerCache 0b111 (write-back, read- and
	// write-allocate), Shareability 0b01 (inner). GITS_CBASER has the same fields.
	itsMemAttrs = 0b111<<59 | 0b01<<10

	// Commands (§5.3, Table 5-3): the opcode in DW0 bits 7:0.
	cmdMAPD   = 0x08
	cmdMAPC   = 0x09
	cmdMAPTI  = 0x0a
	cmdINV    = 0x0c
	cmdSYNC   = 0x05
	cmdSize   = 32
	cmdQueue  = 4096 // bytes: 128 commands, more than boot needs in one go
	itsLPI    = 8192 // the first LPI
	itsLPIBit = 14   // LPI INTIDs below 1<<14: the configuration table's 8 KiB cover 8192 LPIs

	// itsEvents is how many events (MSI lines) one device may have: MAPD's ITT size.
	itsEvents    = 32
	itsMaxDevs   = 16  // devices with an ITT (virt's PCI bus holds a handful)
	itsDevIDs    = 256 // device IDs the device table covers: requester IDs on bus 0
	itsTableSize = 64 << 10
)

// itsTyper is GITS_TYPER decoded (§12.19.16): what the ITS can do and how it wants to be told.
type itsTyper struct {
	physical bool // supports physical LPIs (bit 0)
	ittEntry int  // bytes per ITT entry (bits 7:4, plus 1)
	idBits   int  // event ID bits (bits 12:8, plus 1)
	devBits  int  // device ID bits (bits 17:13, plus 1)
	pta      bool // targets are physical addresses (bit 19), else processor numbers
}

func decodeITSTyper(v uint64) itsTyper {
	return itsTyper{
		physical: v&1 != 0,
		ittEntry: int(v>>4&0xf) + 1,
		idBits:   int(v>>8&0x1f) + 1,
		devBits:  int(v>>13&0x1f) + 1,
		pta:      v>>19&1 != 0,
	}
}

// usable says why the ITS cannot serve this board's scheme, "" if it can: it must handle
// physical LPIs, the events a device gets and the device IDs of bus 0.
func (t itsTyper) usable() string {
	switch {
	case !t.physical:
		return "ITS: no physical LPIs"
	case 1<<t.idBits < itsEvents:
		return "ITS: too few event ID bits"
	case 1<<t.devBits < itsDevIDs:
		return "ITS: too few device ID bits"
	case t.ittEntry*itsEvents > 512:
		return "ITS: ITT entries too large"
	}
	return ""
}

// itsCmd is one command's four doublewords.
type itsCmd [4]uint64

// mapd maps device dev to the ITT at itt (256-byte aligned) for events below 1<<bits (§5.3.8).
func mapd(dev uint32, itt uint64, bits int) itsCmd {
	return itsCmd{cmdMAPD | uint64(dev)<<32, uint64(bits - 1), 1<<63 | itt&^0xff, 0}
}

// mapc maps collection icid to the redistributor target (a physical address>>16 or a processor
// number, as GITS_TYPER.PTA says) (§5.3.7).
func mapc(icid uint16, target uint64) itsCmd {
	return itsCmd{cmdMAPC, 0, 1<<63 | target<<16 | uint64(icid), 0}
}

// mapti maps device dev's event ev to LPI intid in collection icid (§5.3.10).
func mapti(dev, ev, intid uint32, icid uint16) itsCmd {
	return itsCmd{cmdMAPTI | uint64(dev)<<32, uint64(ev) | uint64(intid)<<32, uint64(icid), 0}
}

// inv makes the redistributor reread the configuration byte of device dev's event ev (§5.3.6).
func inv(dev, ev uint32) itsCmd { return itsCmd{cmdINV | uint64(dev)<<32, uint64(ev), 0, 0} }

// syncCmd waits for the effects of earlier commands on the redistributor target (§5.3.20).
func syncCmd(target uint64) itsCmd { return itsCmd{cmdSYNC, 0, target << 16, 0} }

// itsState is the ITS as initITS set it up. Written at boot (InitIRQ, then MSIMessage, which
// runs at boot too) and by EnableIRQ/DisableIRQ under the BKL; no Go pointers.
type itsState struct {
	base    uintptr // the ITS's registers (0: not in use)
	typer   itsTyper
	target  uint64  // the boot core's redistributor, as MAPC and SYNC name it
	mem     uintptr // physical base of the memory block below (64 KiB-aligned)
	cwriter uint64  // the next command's offset in the queue
	first   int     // board line of LPI 8192
	n       int     // MSI lines
	devs    [itsMaxDevs]struct {
		id     uint32
		used   bool
		events int
	}
	lines [itsMaxLines]struct{ dev, ev uint32 } // an MSI line's device and event
}

// itsMaxLines bounds the board lines an LPI may be: the kernel's tables (arm64.MaxIRQLines).
const itsMaxLines = 128
