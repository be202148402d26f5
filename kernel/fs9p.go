// Shares: host directories mounted in the tree over virtio-9p, the kernel as the 9P2000.L client.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"gmpos/drivers/pci"
	"gmpos/drivers/virtio"
	"gmpos/drivers/virtio/p9"
	"gmpos/kernel/mm"
	"gmpos/kernel/vfs"
	"gmpos/sched"
)

// `-share HOSTDIR:GUESTDIR` gives the guest a virtio-9p-pci function whose mount tag is "shareN"
// and the kernel the option share=shareN:GUESTDIR (docs/contract.md). At boot p9Init claims each
// such function, agrees on the protocol and attaches to the host directory (Tversion, Tattach:
// polled, before any thread runs), and marks GUESTDIR in the tree as the share's mount point
// (vfs.SetMount). From then on a path that enters the share comes back from the walk with the
// rest of the path (vfs.Lookup.Rest), and the call is served by the host (fs9p_ops.go).
//
// A call on a share is a round trip, or a few (a walk, then an open, then a getattr): the
// calling thread parks (waitP9) and the device's interrupt runs the next step, until the last
// reply ends the call with wakeThread — the seeds' asynchronous I/O story, on a second device.
// Each share has p9Slots request slots, each with its own message buffers on the device
// (drivers/virtio/p9); a thread takes one for its whole call, and a thread finding none free
// waits for one (waitP9Slot, restarting its call). Fids are the client's names for files on
// the host: fid 0 is the share's root, the others come from a bitmap.
//
// Everything here is protected by the BKL; p9Init runs at boot.

const (
	p9MaxShares = 4
	p9Slots     = 16
	p9Msize     = 128 << 10 // bytes of one message: 128 KiB of data a read or write
	p9MaxFids   = 1024
	p9RootFid   = 0
)

// p9Share is one mounted share.
type p9Share struct {
	up     bool
	pci    pciDev
	tr     virtio.PCI
	dev    p9.Device
	line   int
	ino    vfs.Ino // the mount point
	iounit uint32  // the most data one read or write moves (msize less the header)
	fids   [p9MaxFids / 64]uint64
	req    [p9Slots]p9Req
	// clunks are fids released while no slot was free, clunked when one is.
	clunks  [64]uint32
	nclunk  int
	lostFid uint64 // fids never clunked (the list was full): counted, not leaked silently
}

var (
	p9s        [p9MaxShares]p9Share
	p9Tags     [p9MaxShares]strRef // share=TAG:DIR options: the tag and the directory
	p9Dirs     [p9MaxShares]strRef
	p9NOpts    int
	p9n        int  // shares brought up: p9s[:p9n] (some may have failed: up false)
	p9SlotWait bool // a thread waits for a free slot (waitP9Slot)
	p9Errors   uint64
)

// p9Opt records a share=TAG:DIR option of the command line (cmdline.go).
func p9Opt(r strRef) {
	b := r.bytes()
	for i, c := range b {
		if c == ':' && p9NOpts < p9MaxShares {
			p9Tags[p9NOpts] = strRef{r.off, i}
			p9Dirs[p9NOpts] = strRef{r.off + i + 1, r.n - i - 1}
			p9NOpts++
			return
		}
	}
	cmd.bad = true
}

// p9Init brings up every virtio-9p function named by a share= option. Boot, after pciScan and
// fsInit. A share that cannot be mounted is logged and left out; its directory stays an
// ordinary (empty) one of the tree.
func p9Init() {
	for i := 0; i < p9MaxShares; i++ {
		f := pciFind(virtio.VendorID, p9.DeviceModern, p9.DeviceTransitional, i)
		if f == nil {
			return
		}
		if why := p9Start(i, f); why != "" {
			var k kbuf
			k.s("log virtio-9p: ").s(why).record()
		}
	}
}

// p9Start claims function f as share i; "" or why not.
func p9Start(i int, f *pci.Function) string {
	s := &p9s[i]
	s.pci.claim(f.Func)
	line, why := s.pci.msix("virtio-9p", p9IRQ)
	if why != "" {
		return why
	}
	if err := s.tr.Init(&s.pci.fn, p9BARs[i]); err != nil {
		return err.Error()
	}
	if err := s.dev.InitPCI(&s.tr, p9Buffers, p9Slots, p9Msize, 0); err != nil {
		return err.Error()
	}
	s.line = line
	o := -1
	for k := 0; k < p9NOpts; k++ {
		if string(p9Tags[k].bytes()) == string(s.dev.Tag()) {
			o = k
		}
	}
	if o < 0 {
		return "a device whose mount tag no share= option names"
	}
	// Agree on the protocol and attach, polling: no thread runs yet, and no interrupt may come
	// (a trap at boot has no thread to save into).
	s.dev.DisableInterrupts()
	defer s.dev.EnableInterrupts()
	if e := p9Boot(s, p9.Version(s.dev.Out(0), p9.NoTag, p9Msize, p9.Version2000L), p9.Tversion); e != "" {
		return e
	}
	// The server may offer a smaller msize (never larger) and must speak 9P2000.L.
	msize, version, why := p9.Rversion(p9Body(s))
	if why != "" || string(version) != p9.Version2000L || msize < p9.MinMsize || msize > p9Msize {
		return "the host does not speak 9P2000.L with a usable msize"
	}
	if e := p9Boot(s, p9.Attach(s.dev.Out(0), 0, p9RootFid, p9.NoFid, "root", "", 0), p9.Tattach); e != "" {
		return e
	}
	s.fids[0] = 1 // the root fid
	s.iounit = msize - p9.IOHdrSize
	// The mount point: the directory, made if the tree lacks it.
	var lk vfs.Lookup
	dir := p9Dirs[o].bytes()
	for at := 1; at <= len(dir); at++ {
		if at == len(dir) || dir[at] == '/' {
			var e vfs.Errno
			if lk, e = vfs.Walk(vfs.Root, dir[:at], true); e != vfs.OK {
				return "the mount point's path is not a directory path"
			}
			if lk.Ino == 0 {
				if lk.Ino, e = vfs.Mkdir(lk.Dir, lk.Name, 0o755); e != vfs.OK {
					return "cannot make the mount point"
				}
			}
		}
	}
	if !vfs.Get(lk.Ino).IsDir() {
		return "the mount point is not a directory"
	}
	s.ino = lk.Ino
	vfs.SetMount(lk.Ino, i)
	s.up = true
	p9n = max(p9n, i+1)
	return ""
}

// p9Boot sends one message (of type sent) on slot 0 and spins for its reply (boot only:
// interrupts are off).
func p9Boot(s *p9Share, n int, sent uint8) string {
	if n == 0 || !s.dev.Submit(0, n) {
		return "cannot send a boot message"
	}
	for spin := 0; spin < 1<<30; spin++ {
		if slot, m, ok := s.dev.Complete(); ok {
			p9BootLen = m
			if slot != 0 {
				return "a reply on the wrong slot"
			}
			tag := uint16(0)
			if sent == p9.Tversion {
				tag = p9.NoTag
			}
			_, errno, why := p9.Expect(s.dev.In(0), m, tag, sent)
			if why != "" {
				return why
			}
			if errno != 0 {
				return "the host refused the share (Rlerror)"
			}
			return ""
		}
	}
	return "no reply from the device"
}

// p9Body is the body of the boot reply in slot 0 (p9Boot checked it).
func p9Body(s *p9Share) []byte {
	_, _, body, _ := p9.Parse(s.dev.In(0), p9BootLen)
	return body
}

// p9BARs gives each share's transport its BARs (a function value per share: no closure).
var p9BARs = [p9MaxShares]func(int) (uintptr, uint64, bool){
	func(i int) (uintptr, uint64, bool) { return p9s[0].pci.bar(i) },
	func(i int) (uintptr, uint64, bool) { return p9s[1].pci.bar(i) },
	func(i int) (uintptr, uint64, bool) { return p9s[2].pci.bar(i) },
	func(i int) (uintptr, uint64, bool) { return p9s[3].pci.bar(i) },
}

// p9Buffers gives the device n physically contiguous bytes (one descriptor a message).
func p9Buffers(n int) (uintptr, uint64, bool) {
	pa, ok := mm.AllocContiguous((n + mm.PageSize - 1) / mm.PageSize)
	if !ok {
		return 0, 0, false
	}
	return mm.PhysToVirt(pa), uint64(pa), true
}

// p9IRQ is a share's completion interrupt: run the next step of every answered request.
// Interrupt context. The poller (net_poller.go) does the same when a core looks for work.
func p9IRQ(line int, cpu int) {
	netWakeBy(wakeIRQ)
	for i := 0; i < p9n; i++ {
		if p9s[i].up && p9s[i].line == line {
			p9Poll(i, cpu)
		}
	}
	netWakeBy(wakeOther)
}

// p9Poll takes every reply share i has and advances its request. Interrupt or trap context.
func p9Poll(i int, cpu int) {
	s := &p9s[i]
	for {
		slot, n, ok := s.dev.Complete()
		if !ok {
			return
		}
		if slot < 0 || slot >= p9Slots || !s.req[slot].busy {
			p9Errors++
			continue
		}
		r := &s.req[slot]
		body, errno, why := p9.Expect(s.dev.In(slot), n, uint16(slot), r.sent)
		if why != "" {
			p9Errors++
			klogOnce(&p9BadReply, "virtio-9p: a malformed reply (EIO)")
			errno = EIO
		}
		// The reply completes r.gp's call: its process's fd table and memory (proc.go).
		old := enterProc(r.gp)
		p9Step(i, slot, body, int64(errno), cpu)
		leaveProc(old)
	}
}

var (
	p9BadReply bool
	p9BootLen  int // the length of the last boot reply
)

// p9NewFid takes a free fid of share i; 0 when none is left (0 is the root's, never free).
func p9NewFid(i int) uint32 {
	s := &p9s[i]
	for w := range s.fids {
		if s.fids[w] != ^uint64(0) {
			for b := 0; b < 64; b++ {
				if s.fids[w]&(1<<b) == 0 {
					s.fids[w] |= 1 << b
					return uint32(w*64 + b)
				}
			}
		}
	}
	return 0
}

func p9FreeFid(i int, fid uint32) {
	if fid != p9RootFid && fid < p9MaxFids {
		p9s[i].fids[fid/64] &^= 1 << (fid % 64)
	}
}

// p9Slot takes a free request slot of share i for thread gp, or -1.
func p9Slot(i int) int {
	for k := range p9s[i].req {
		if !p9s[i].req[k].busy {
			p9s[i].req[k] = p9Req{busy: true}
			return k
		}
	}
	return -1
}

// p9Wait parks the calling thread on request slot of share i; the request's last step wakes it
// with the call's result. Not interrupted by signals (as waitNet): the host answers — and if it
// does not within p9Timeout, the call fails with EIO and a log line rather than hang (the slot
// stays taken until a reply comes).
func p9Wait(t *Thread, gp sched.GID, cpu int, i, slot int) int64 {
	r := &p9s[i].req[slot]
	r.gp, r.waiting = gp, true
	t.waitObj = uintptr(i<<8 | slot)
	block(t, gp, cpu, waitP9, nanotime()+p9Timeout)
	return 0
}

// p9Timeout bounds one call on a share (all its round trips).
const p9Timeout = 60_000_000_000

// p9Timedout ends gp's call on a share that the host did not answer (expireTimeouts).
func p9Timedout(gp sched.GID, cpu int) {
	klogOnce(&p9Silent, "virtio-9p: the host did not answer a call within 60 s (EIO)")
	wakeThread(gp, -EIO, cpu)
}

var p9Silent bool

// p9WaitSlot parks a thread that found no free slot until one is; its call then runs again.
func p9WaitSlot(t *Thread, gp sched.GID, cpu int) int64 {
	p9SlotWait = true
	block(t, gp, cpu, waitP9Slot, 0)
	return 0
}

// p9WaitEnd forgets the wait of gp on its request (unblock: the thread left the wait).
func p9WaitEnd(gp sched.GID) {
	o := threads[gp].waitObj
	r := &p9s[o>>8].req[o&0xff]
	if r.gp == gp {
		r.waiting = false
	}
}

// p9Release frees a finished request's slot, sends the clunks that waited for one, and wakes
// the threads that waited for a slot.
func p9Release(i, slot int, cpu int) {
	s := &p9s[i]
	s.req[slot] = p9Req{}
	if s.nclunk > 0 {
		s.nclunk--
		p9SendClunk(i, slot, s.clunks[s.nclunk])
		return
	}
	if p9SlotWait {
		p9SlotWait = false
		for k := 0; k < waiters.n; {
			gp := waiters.g[k]
			if threads[gp].wait == waitP9Slot {
				wakeToRestart(gp, cpu)
				continue
			}
			k++
		}
	}
}

// p9Clunk gives fid back to the host (the last close of a file, a walk's temporary fid):
// nobody waits for the answer.
func p9Clunk(i int, fid uint32) {
	if fid == p9RootFid {
		return
	}
	if slot := p9Slot(i); slot >= 0 {
		p9SendClunk(i, slot, fid)
		return
	}
	s := &p9s[i]
	if s.nclunk < len(s.clunks) {
		s.clunks[s.nclunk] = fid
		s.nclunk++
		return
	}
	s.lostFid++
}

func p9SendClunk(i, slot int, fid uint32) {
	r := &p9s[i].req[slot]
	*r = p9Req{busy: true, op: p9OpClunk, fid: fid}
	p9Send(i, slot, p9.Clunk(p9s[i].dev.Out(slot), uint16(slot), fid), p9.Tclunk)
}

// p9Send posts the message of n bytes just written to slot's out-buffer; sent is its type.
func p9Send(i, slot int, n int, sent uint8) bool {
	p9s[i].req[slot].sent = sent
	if n == 0 || !p9s[i].dev.Submit(slot, n) {
		p9Errors++
		return false
	}
	return true
}
