// The NIC: finding the virtio-net device at boot, its interrupt, and the NIC file.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"gmpos/drivers/pci"
	"gmpos/drivers/virtio"
	virtionet "gmpos/drivers/virtio/net"
	"gmpos/kernel/mm"
	"gmpos/kernel/netabi"
)

// At boot nicInit takes the first virtio-net function of the bus (pci_devices.go), maps its
// BARs, routes its receive queue's MSI-X vector to a device interrupt line (irq.go) and brings the
// device up (drivers/virtio/net).
//
// The network stack reads and writes frames through the NIC file, a TAP-like device
// (netabi.OpOpenNIC): read gives one received frame, write sends one. Receive livelock — a
// flood of frames keeping a core in the interrupt handler (Mogul & Ramakrishnan, 1997; the
// lesson of xv6's network lab) — cannot happen: the interrupt handler turns the device's receive
// interrupt off and tells the file's readers, and the interrupt comes back on when a read finds
// the ring empty (or at once, if there was nobody to tell: nicIRQ). In between, the stack drains
// the ring at its own pace, and the poller (net_poller.go) notices new frames when cores look
// for work under the BKL.
//
// Everything here is protected by the BKL; nicInit runs at boot.

// nic is the machine's one NIC.
var nic struct {
	present  bool
	mac      [6]byte
	pci      pciDev // the PCI function and its BARs
	tr       virtio.PCI
	dev      virtionet.Device
	line     int   // its device interrupt line
	file     int32 // the NIC file, -1 when not open
	notified bool  // readers have been told of the frames in the ring; a read finding it empty clears it
}

// nicInit finds and starts the NIC: the first virtio-net function of the bus (pciScan). Boot.
// Without one (or if it cannot be started, which is logged) the machine simply has no network
// device: sockets still work over loopback.
func nicInit() {
	nic.file = -1
	f := pciFind(virtionet.Vendor, virtionet.DeviceModern, virtionet.DeviceTransitional, 0)
	if f == nil {
		return
	}
	if why, err := nicStart(f.Func); why != "" {
		var k kbuf
		k.s("log virtio-net: ").s(why)
		if err != nil {
			k.s(": ").s(err.Error())
		}
		k.record()
	}
}

// nicStart brings up the virtio-net function fn; "" or why it could not.
func nicStart(fn pci.Func) (string, error) {
	nic.pci.claim(fn)
	line, why := nic.pci.msix("virtio-net", nicIRQ)
	if why != "" {
		return why, nil
	}
	if err := nic.tr.Init(&nic.pci.fn, nicBAR); err != nil {
		return "transport", err
	}
	if err := nic.dev.Init(&nic.tr, nicPage, 0, virtio.NoVector); err != nil {
		return "device", err
	}
	nic.line = line
	nic.mac = nic.dev.MAC()
	nic.present = true
	return "", nil
}

// nicBAR gives the transport BAR i's mapped address.
func nicBAR(i int) (uintptr, uint64, bool) { return nic.pci.bar(i) }

// nicPage gives the driver a zeroed frame for rings and buffers.
func nicPage() (uintptr, uint64, bool) {
	pa, ok := mm.AllocZeroFrame()
	if !ok {
		return 0, 0, false
	}
	return mm.PhysToVirt(pa), uint64(pa), true
}

// nicIRQ is the receive queue's interrupt. Interrupt context: interrupts off at the device
// until the ring has been drained, then tell the NIC file's readers.
//
// The invariant that makes the kernel's poller an optimisation rather than a necessity: the
// receive interrupt is off only while the NIC file's readers have been told (nic.notified), and
// a told reader reads until the ring is empty (netstack's receive loop), which turns it back on.
// So a frame is never left waiting for a poll: a core may halt, or run for as long as it likes,
// without polling (the paths without the BKL never do: wake_unlocked.go). An interrupt that finds
// nothing to tell, the frame it announced already taken by a read, turns the interrupt straight
// back on, and tells the readers if a frame slipped in meanwhile. While the file is not open
// nobody is told and the interrupt stays off: the stack's first read drains the ring and turns
// it on.
func nicIRQ(line int, cpu int) {
	netStats[netabi.NetIRQs]++
	nic.dev.DisableRxInterrupts()
	netWakeBy(wakeIRQ)
	nicSignal(cpu)
	if !nic.notified && nic.file >= 0 && nic.dev.EnableRxInterrupts() {
		nicSignal(cpu)
	}
	netWakeBy(wakeOther)
}

// nicSignal tells the NIC file's readers (the stack's receive goroutine, parked in epoll) that
// frames wait, once per drain. true if it did.
func nicSignal(cpu int) bool {
	if nic.notified || nic.file < 0 || !nic.dev.RxPending() {
		return false
	}
	nic.notified = true
	fileNotify(int(nic.file), epollIn, cpu)
	return true
}

// nicFile is the NIC file's kind (netabi.OpOpenNIC).
type nicFile struct{}

// read gives one received frame, truncated to n as a TAP device does.
func (nicFile) read(f *file, buf, n uintptr) int64 {
	for {
		p, l, ok := nic.dev.RxNext()
		if !ok {
			nic.notified = false
			if nic.dev.EnableRxInterrupts() {
				continue // a frame raced the re-enable: take it now
			}
			return -EAGAIN
		}
		c := min(uintptr(l), n)
		if c > 0 && !userRange(buf, c, true) {
			nic.dev.RxDone()
			netStats[netabi.NetRxDrops]++
			return -EFAULT
		}
		copy(userBytes(buf, c), userBytes(p, c))
		nic.dev.RxDone()
		netStats[netabi.NetRxFrames]++
		netStats[netabi.NetRxBytes] += uint64(l)
		return int64(c)
	}
}

// write sends one frame: at least an Ethernet header, at most netabi.MaxFrame bytes.
func (nicFile) write(f *file, buf, n uintptr) int64 {
	if n < 14 || n > netabi.MaxFrame {
		return -EINVAL
	}
	if !userRange(buf, n, false) {
		return -EFAULT
	}
	p, room, ok := nic.dev.TxBuffer()
	if !ok || uintptr(room) < n {
		netStats[netabi.NetTxFull]++
		return -EAGAIN
	}
	copy(userBytes(p, n), userBytes(buf, n))
	nic.dev.TxSubmit(int(n))
	netStats[netabi.NetTxFrames]++
	netStats[netabi.NetTxBytes] += uint64(n)
	return int64(n)
}

func (nicFile) poll(f *file) uint32 {
	if nic.dev.RxPending() {
		return epollIn | epollOut
	}
	return epollOut
}

func (nicFile) stat(f *file) fileStat { return fileStat{mode: sIFCHR | 0o600, nlink: 1, blksize: 4096} }

func (nicFile) release(f *file) {
	if int32(f.index()) == nic.file {
		nic.file = -1
	}
}

// nicRecvFrames moves received frames into the stack's buffer as frame records
// (netabi.OpNICRecv): the NIC file's read, a batch per system call. It stops when the next frame
// might not fit (RxNext cannot give one back) or the ring is empty; an empty ring turns the
// receive interrupt back on (the race with a frame arriving meanwhile is the read's) and is
// reported with NICDrained, so that the stack waits for the file to become readable instead of
// asking once more.
func nicRecvFrames(buf, n uintptr) int64 {
	if !nic.present {
		return -ENODEV
	}
	if nic.file < 0 {
		return -EBADF // the NIC file carries the readiness: open it first (OpOpenNIC)
	}
	if n < netabi.FrameRecMax {
		return -EINVAL
	}
	n = min(n, 1<<20) // bounds the pre-fault; a batch is a ring's worth at most
	if !userRange(buf, n, true) {
		return -EFAULT
	}
	used := uintptr(0)
	for n-used >= netabi.FrameRecMax {
		p, l, ok := nic.dev.RxNext()
		if !ok {
			nic.notified = false
			if nic.dev.EnableRxInterrupts() {
				continue // a frame raced the re-enable: take it now
			}
			if used == 0 {
				return -EAGAIN
			}
			return int64(used) | netabi.NICDrained
		}
		store16(buf+used, uint16(l))
		copy(userBytes(buf+used+netabi.FrameRecHdr, uintptr(l)), userBytes(p, uintptr(l)))
		nic.dev.RxDone()
		netStats[netabi.NetRxFrames]++
		netStats[netabi.NetRxBytes] += uint64(l)
		used += netabi.FrameRecHdr + uintptr(l)
	}
	return int64(used)
}

// nicSendFrames sends the stack's frame records in order with one notification of the device
// (netabi.OpNICSend) and returns how many went out.
func nicSendFrames(buf, n uintptr) int64 {
	if !nic.present {
		return -ENODEV
	}
	if nic.file < 0 {
		return -EBADF // the NIC file carries the readiness: open it first (OpOpenNIC)
	}
	if n > 1<<20 || !userRange(buf, n, false) {
		return -EFAULT
	}
	sent := int64(0)
	for off := uintptr(0); off < n; {
		hdr := userBytes(buf+off, min(n-off, netabi.FrameRecHdr))
		if len(hdr) < netabi.FrameRecHdr {
			break
		}
		l := uintptr(hdr[0]) | uintptr(hdr[1])<<8
		if l < 14 || l > netabi.MaxFrame || off+netabi.FrameRecHdr+l > n {
			if sent == 0 {
				return -EINVAL
			}
			break
		}
		p, room, ok := nic.dev.TxBuffer()
		if !ok || uintptr(room) < l {
			netStats[netabi.NetTxFull]++
			break
		}
		copy(userBytes(p, l), userBytes(buf+off+netabi.FrameRecHdr, l))
		nic.dev.TxQueue(int(l))
		netStats[netabi.NetTxFrames]++
		netStats[netabi.NetTxBytes] += uint64(l)
		sent++
		off += netabi.FrameRecHdr + l
	}
	if kick, ok := nic.dev.TxKickPrepare(); ok {
		deferNotify(currentCPU(), kick) // after the BKL (smp.go bklUnlock)
	}
	if sent == 0 {
		return -EAGAIN
	}
	return sent
}
