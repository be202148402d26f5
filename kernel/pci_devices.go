// The PCI functions found at boot, for the drivers to claim.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "gmpos/drivers/pci"

// The bus is walked once (pciScan), through the board's configuration mechanism (ECAM on q35,
// ports on pc); each driver's init then looks for its functions in the list (pciFind): the NIC
// (nic.go), the console (the virtio console), the shared directories (virtio-9p). Boot.

// pciFuncs is the enumeration's result (static: nothing may be allocated at boot).
var (
	pciFuncs [64]pci.Function
	pciN     int
	pciOK    bool // the board has a configuration mechanism
	// pciMem is where claim places memory BARs the firmware left without an address: the
	// board's window, below every address the firmware did assign (pci.Window).
	pciMem pci.Window
)

// pciScan enumerates the bus. Boot.
func pciScan() {
	cfg, ok := board.PCIConfig(mapDevice)
	if !ok {
		return
	}
	pciOK = true
	pciN = pci.Enumerate(cfg, pciFuncs[:])
	pciMem = board.PCIWindow()
	for k := 0; k < pciN; k++ {
		pciMem.Keep(pciFuncs[k].Func)
	}
}

// pciFind returns the i-th function (0 the first) with this vendor and one of the two device
// IDs (a virtio device's modern and transitional ones), or nil.
func pciFind(vendor, dev1, dev2 uint16, i int) *pci.Function {
	for k := 0; k < pciN; k++ {
		f := &pciFuncs[k]
		if f.Vendor == vendor && (f.Device == dev1 || f.Device == dev2) {
			if i == 0 {
				return f
			}
			i--
		}
	}
	return nil
}

// pciDev is a function a driver has claimed: its memory BARs, mapped (identity, uncached:
// mapDevice), memory decoding and bus mastering on. Plain data, kept in the driver's global.
type pciDev struct {
	fn   pci.Func // the function (a pointer to it is the transport's config space)
	bars [6]pci.BAR
}

// claim maps fn's memory BARs and lets it decode them and master the bus (for virtqueues). A
// BAR without an address gets one from pciMem first: SeaBIOS assigns every BAR, qboot (the
// runner's default firmware, which boots faster) none.
func (d *pciDev) claim(fn pci.Func) {
	d.fn = fn
	for i := 0; i < len(d.bars); {
		b, next := pci.ReadBAR(fn, i)
		if b.Size != 0 && !b.IO && b.Base == 0 {
			if base, ok := pciMem.Alloc(b.Size); ok {
				b = pci.AssignBAR(fn, i, base)
			}
		}
		if b.Size != 0 && !b.IO && b.Base != 0 && mapDevice(uintptr(b.Base), uintptr(b.Size)) {
			d.bars[i] = b
		}
		i = next
	}
	pci.EnableMemory(fn)
	pci.EnableBusMaster(fn)
}

// bar gives a transport BAR i's mapped address.
func (d *pciDev) bar(i int) (uintptr, uint64, bool) {
	if i < 0 || i >= len(d.bars) || d.bars[i].Size == 0 {
		return 0, 0, false
	}
	return uintptr(d.bars[i].Base), d.bars[i].Size, true
}

// msix routes MSI-X table entry 0 of the function to a new device interrupt line with handler
// h; the line, or "" and why not.
func (d *pciDev) msix(name string, h irqHandler) (int, string) {
	m, ok := pci.ReadMSIX(d.fn)
	if !ok || m.TableBAR >= len(d.bars) || !m.TableFits(d.bars[m.TableBAR]) {
		return -1, "no usable MSI-X capability"
	}
	a := d.fn.A
	line, addr, data, ok := irqAllocMSI(name, uint16(a.Bus)<<8|uint16(a.Dev)<<3|uint16(a.Fn), h)
	if !ok {
		return -1, "no free MSI line"
	}
	table := uintptr(d.bars[m.TableBAR].Base) + uintptr(m.TableOffset)
	if !m.SetVector(table, 0, addr, data) {
		return -1, "cannot program the MSI-X table"
	}
	m.Enable(d.fn)
	return line, ""
}
