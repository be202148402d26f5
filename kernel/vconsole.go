// The virtio console: the program's stdout and stderr as one framed stream, at memory speed.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"gmpos/drivers/pci"
	"gmpos/drivers/virtio"
	vconsole "gmpos/drivers/virtio/console"
	"gmpos/kernel/arch"
	"gmpos/kernel/mm"
)

// The UARTs move the program's output a byte at a time — two emulated port accesses and a host
// system call each, about 300 KB/s — with the BKL held and interrupts off for the whole write.
// When the runner gives the machine a virtio console (docs/contract.md, "Virtio console"),
// vconsoleInit takes it at boot and from then on fds 1 and 2 write records into its ring
// (drivers/virtio/console): a write of up to vconMaxWrite bytes goes into the ring whole, handed
// to the device with one notification, and a writer that finds no room for it parks (sysWrite:
// -EAGAIN, waitFile) until the device's completion interrupt has freed enough (vconWake) — so
// that one write's bytes stay together in the stream however the writers interleave, as a
// tty's writes do (Linux's n_tty_write keeps atomic_write_lock across its waits for room); an
// O_NONBLOCK writer takes what fits instead. The host reading slowly slows
// the program down, it neither loses output nor holds up anything else. Kernel text for stdout
// and stderr (the fault report, "out of memory") takes the same stream by polling, so that it
// stays in order with the program's; the control channel stays on the UART.
//
// The machine may only stop once the device has taken everything (QEMU exits at the exit port's
// write, and what is still in the ring is lost): kbuf.record flushes the ring before an "exit"
// or "panic" record, polling the used ring with interrupts off, for at most vconFlushNS — the
// host may be slow to read, but it may also have stopped (Linux's serial driver waits
// closing_wait, 30 s by default, for output to drain on close, for the same reason).
//
// Without the device (a machine booted by hand with docs/contract.md's command, or one whose
// device or port cannot be opened, which is logged) everything stays on the UARTs. A kernel
// fault inside this code, or a second one while reporting, takes the device out of use so that
// the report reaches the UART (vconFault).
//
// The device is vconLock's (below): a write(2) takes it with the BKL or without it
// (console_unlocked.go), kernel text from any core takes it for a bounded time, the interrupt
// under the BKL. vcon.up, vcon.stalled and vcon.fault are set once, by whoever finds the device
// gone or a fault begun, and read without the lock; vconsoleInit runs at boot.

const (
	vconRing     = 512 << 10 // how far the program may get ahead of the host before a writer parks
	vconMaxWrite = 128 << 10 // bytes one write(2) copies: 0.6-0.7 ms under the BKL (TCG)
	// vconWake is how much room the completion interrupt waits for before it wakes the parked
	// writers: a whole vconMaxWrite (vconRoom).
	vconWake    = vconMaxWrite + vconsole.RecordHeader*(vconMaxWrite/vconsole.MaxRecord+2) // vconRoom(vconMaxWrite)
	vconOpenNS  = 1_000_000_000                                                            // how long boot waits for the port's handshake
	vconFlushNS = 30_000_000_000                                                           // how long a flush waits for the host to read
)

// A whole write must fit in the ring with room to spare, or a writer would wait forever.
var _ [vconRing/2 - vconWake]struct{}

// vcon is the machine's virtio console.
var vcon struct {
	up      bool // output goes to the device
	pci     pciDev
	tr      virtio.PCI
	dev     vconsole.Device
	line    int
	waiting bool // a writer found no room: the completion interrupt wakes the console's writers
	fault   bool // a kernel fault report has begun
	stalled bool // a poll for the host gave up (vconFlushNS): kernel text takes the UART now
}

// vconLock serialises the device: the driver's ring and queues (vcon.dev) and vcon.waiting.
// Every writer takes it — a write(2) with or without the BKL, the interrupt, kernel
// text (for at most vconKernelWait) — for a whole write, so that one write's bytes stay
// together in the stream, as a tty's atomic_write_lock keeps them (Linux drivers/tty/tty_io.c).
// A leaf: nothing is taken inside it but mm's lock, when the BKL's write faults a page of the
// buffer in (userRange). Held for up to a vconMaxWrite copy, longer than the other spin locks.
var vconLock = spinLock{rank: rankConsole, name: "the console"}

// vconsoleInit finds and opens the virtio console: the first virtio console function of the bus
// (pciScan), its port console.Port. Boot, after pciScan.
func vconsoleInit() {
	f := pciFind(vconsole.Vendor, vconsole.DeviceModern, vconsole.DeviceTransitional, 0)
	if f == nil {
		return
	}
	if why, err := vconStart(f.Func); why != "" {
		var k kbuf
		k.s("log virtio-console: ").s(why)
		if err != nil {
			k.s(": ").s(err.Error())
		}
		k.s("; the console stays on the UARTs").record()
	}
}

// vconStart brings up the function and its port; "" or why it could not.
func vconStart(fn pci.Func) (string, error) {
	vcon.pci.claim(fn)
	line, why := vcon.pci.msix("virtio-console", vconIRQ)
	if why != "" {
		return why, nil
	}
	vcon.line = line
	if err := vcon.tr.Init(&vcon.pci.fn, vconBAR); err != nil {
		return "transport", err
	}
	if err := vcon.dev.Init(&vcon.tr, nicPage, vconBuffer, vconRing, vconsole.Port, 0); err != nil {
		return "device", err
	}
	// The handshake is a few control messages; QEMU answers within the notification under
	// TCG, from its I/O thread under KVM.
	for deadline := nanotime() + vconOpenNS; !vcon.dev.Open() && nanotime() < deadline; {
		vcon.dev.Poll()
		arch.Pause()
	}
	if !vcon.dev.Open() {
		return "port 1 was not opened (no virtserialport nr=1, or its host side is not connected)", nil
	}
	vcon.up = true
	if cmd.klog {
		var k kbuf
		k.s("log console: virtio port 1, ring ").d(vconRing >> 10).s(" KiB").record()
	}
	return "", nil
}

// vconBAR gives the transport BAR i's mapped address.
func vconBAR(i int) (uintptr, uint64, bool) { return vcon.pci.bar(i) }

// vconBuffer gives the driver its ring: contiguous frames, zeroed.
func vconBuffer(n int) (uintptr, uint64, bool) {
	pa, ok := mm.AllocContiguous((n + mm.PageSize - 1) / mm.PageSize)
	if !ok {
		return 0, 0, false
	}
	return mm.PhysToVirt(pa), uint64(pa), true
}

// vconWrite is a console file's write on channel ch with the device up, under the BKL: it
// copies at most vconMaxWrite bytes into the ring — all of them or none while whole (a blocking
// file), what fits otherwise — and returns that count; -EAGAIN if the ring has no room, after
// asking for the completion interrupt (the caller parks, sysWrite); -EFAULT if the first byte
// cannot be read. As the UART path, it stops at the first consolePiece it cannot read. The same
// write without the BKL is console_unlocked.go's.
//
// Each round that finds no room and completions already waiting consumes them all, and the
// device completes no more descriptors than were posted: an honest device ends the loop long
// before its bound, which only stops a hostile one from holding the BKL.
func vconWrite(ch int, buf, n uintptr, whole bool) int64 {
	n = min(n, vconMaxWrite)
	if n == 0 {
		return 0
	}
	cpu := arch.Current().ID()
	for tries := 0; tries < 2*virtio.MaxQueueSize; tries++ {
		vconLock.lock(cpu)
		vcon.dev.Reap()
		done, fault := uintptr(0), false
		open := vcon.dev.Open()
		if open && (!whole || vcon.dev.Space() >= vconRoom(n)) {
			for done < n {
				c := min(n-done, consolePiece)
				if !userRange(buf+done, c, false) {
					fault = true
					break
				}
				w := uintptr(vcon.dev.Write(uint8(ch), userBytes(buf+done, c)))
				done += w
				if w < c {
					break
				}
			}
			vcon.dev.Submit()
		}
		full := done == 0 && !fault && open && vconWaitForSpace()
		vconLock.unlock(cpu)
		switch {
		case done > 0:
			return int64(done)
		case fault:
			return -EFAULT
		case !open:
			vconDown()
			return uartWrite(ch, buf, n)
		case !full:
			return -EAGAIN
		}
		// No room, and completions came before the interrupt was on, which raise none: take
		// those and try again.
	}
	return -EAGAIN
}

// vconRoom is the ring space a write of n bytes needs: n and the headers of the records it may
// start (one every MaxRecord bytes, one more where it begins and one where a record ends).
func vconRoom(n uintptr) int {
	return int(n) + vconsole.RecordHeader*(int(n)/vconsole.MaxRecord+2)
}

// vconWaitForSpace records that a writer waits and turns the completion interrupt on; true if
// completions were already waiting (the caller reaps and tries again). vconLock.
func vconWaitForSpace() bool {
	vcon.waiting = true
	return vcon.dev.EnableInterrupts()
}

// vconWritable is the console files' output readiness (poll, epoll): room in the ring. Not
// writable also arms the interrupt that will say when it is (fileNotify). Under the BKL.
func vconWritable() bool {
	cpu := arch.Current().ID()
	vconLock.lock(cpu)
	vcon.dev.Reap()
	ok := vcon.dev.Space() > vconsole.RecordHeader
	if !ok && vconWaitForSpace() {
		vcon.dev.Reap()
		ok = vcon.dev.Space() > vconsole.RecordHeader
	}
	vconLock.unlock(cpu)
	return ok
}

// vconIRQ is the device's interrupt: transmit completions (while a writer waits) and control
// messages. Interrupt context, under the BKL: take the completions and, once a whole write fits
// (vconWake), turn the completion interrupt off and wake the console's writers. The waiting
// writers parked under the BKL (sysWrite), so none can be on its way to a wait while this runs;
// writers without it never wait (console_unlocked.go), and defer to these while they do.
func vconIRQ(line int, cpu int) {
	vconLock.lock(cpu)
	vcon.dev.Poll()
	open := vcon.dev.Open()
	wake := false
	switch {
	case !vcon.waiting:
		vcon.dev.DisableInterrupts()
	case open && vcon.up && vcon.dev.Space() < vconWake && !vcon.dev.Idle():
		// keep waiting: a writer woken now might find no room for its write
	default:
		vcon.waiting = false
		vcon.dev.DisableInterrupts()
		wake = true
	}
	vconLock.unlock(cpu)
	if !open {
		vconDown()
	}
	if !wake {
		return
	}
	for i := range files {
		if files[i].kind == kindConsole && files[i].priv != consoleStdin {
			fileNotify(i, epollOut, cpu)
		}
	}
}

// vconDown takes the device out of use (its host side closed, or the port went away): output
// goes to the UARTs from now on. Not inside vconLock: it logs.
func vconDown() {
	if vcon.up {
		vcon.up = false
		klog("virtio-console: the port closed; the console is on the UARTs from now on")
	}
}

// vconKernelWait bounds how long kernel text waits for another core's console write: a whole
// vconMaxWrite takes 0.6-0.7 ms under TCG, and a vCPU descheduled by the host holds it longer.
const vconKernelWait = 50_000_000

// vconTake takes vconLock for kernel text on this core, if the device is in use for it and the
// lock comes within vconKernelWait; false means the UART (a fault inside the driver, on this
// core, holds the lock already).
func vconTake(cpu int) bool {
	return vcon.up && !vcon.stalled && vconLock.lockWithin(cpu, vconKernelWait)
}

// vconKernelWrite sends kernel text (for stdout or stderr) through the device by polling, when
// this core can take it (vconTake), and returns what it could not send (all of p when it may
// not): the caller writes that to the UART. Any context, interrupts off. A host that has not
// made room for vconFlushNS stalls the device for kernel text: the rest of a fault report must
// not wait that long again for each of its lines.
func vconKernelWrite(ch int, p []byte) []byte {
	cpu := arch.Current().ID()
	if !vconTake(cpu) {
		return p
	}
	deadline := int64(0)
	for len(p) > 0 && vcon.dev.Open() {
		vcon.dev.Reap()
		w := vcon.dev.Write(uint8(ch), p)
		p = p[w:]
		vcon.dev.Submit()
		if w == 0 {
			if deadline == 0 {
				deadline = nanotime() + vconFlushNS
			} else if nanotime() > deadline {
				vcon.stalled = true // the report's next lines go to the UART at once
				break
			}
			arch.Pause()
		}
	}
	vconLock.unlock(cpu)
	return p
}

// vconFlush waits until the device has taken every byte written, or vconFlushNS has passed:
// before the machine stops (kbuf.record). Any context, interrupts off.
//
// It waits for another core's write as long as it would for the host (vconFlushNS), not
// vconKernelWait: what that core has written is in the ring, and the machine's end must not
// drop it.
func vconFlush() {
	cpu := arch.Current().ID()
	if !vcon.up || vcon.stalled {
		return
	}
	if !vconLock.lockWithin(cpu, vconFlushNS) {
		if vconLock.heldBy(cpu) {
			return // a fault inside the driver: the report goes to the UART
		}
		klog("virtio-console: another core held the console through the flush: output may be lost")
		return
	}
	if vcon.stalled { // the holder gave up on the host meanwhile: so does the flush
		vconLock.unlock(cpu)
		return
	}
	for deadline := nanotime() + vconFlushNS; !vcon.dev.Idle() && vcon.dev.Open() && nanotime() < deadline; {
		vcon.dev.Reap()
		arch.Pause()
	}
	q := vcon.dev.Queued()
	if q > 0 {
		vcon.stalled = true
	}
	vconLock.unlock(cpu)
	if q > 0 {
		var k kbuf
		k.s("log virtio-console: ").d(int64(q)).s(" bytes of output not taken by the host in ").
			d(vconFlushNS / 1_000_000_000).s(" s: lost").record()
	}
}

// vconFault is the fault report's first step (kernelFault): a fault taken inside the driver, or
// a second fault during the report (the first may have faulted writing through the device),
// takes the device out of use, so that the report reaches the UART.
func vconFault() {
	if vconLock.heldBy(arch.Current().ID()) || vcon.fault {
		vcon.up = false
	}
	vcon.fault = true
}
