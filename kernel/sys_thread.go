package kernel

import (
	"gmpos/kernel/arch/amd64"
	"gmpos/kernel/mm"
	"gmpos/sched"
)

// Threads and process exit: clone, exit, exit_group.

// Clone flags (include/uapi/linux/sched.h). The Go runtime always passes cloneThread|[cloneSettls]
// (runtime-contract §3.4); gmpos has one address space, so only thread-creating clones exist.
const (
	cloneVM            = 0x100
	cloneFS            = 0x200
	cloneFiles         = 0x400
	cloneSighand       = 0x800
	cloneThread        = 0x10000
	cloneSysvsem       = 0x40000
	cloneSettls        = 0x80000
	cloneParentSettid  = 0x100000
	cloneChildCleartid = 0x200000
	cloneChildSettid   = 0x1000000

	cloneRequired = cloneVM | cloneSighand | cloneThread
	cloneAllowed  = cloneRequired | cloneFS | cloneFiles | cloneSysvsem | cloneSettls | 0xff /* exit signal */
)

// sysCloneCall creates a thread sharing everything with its parent; the child resumes at the same
// instruction with RAX = 0 on the given stack (runtime-contract §3.4: the Go runtime relies on all
// other registers being inherited).
func sysCloneCall(t *Thread, cpu int, flags uint64, stack, ptid, ctid, tls uintptr) int64 {
	if flags&cloneRequired != cloneRequired || flags&^cloneAllowed != 0 {
		return -EINVAL
	}
	if flags&cloneSettls != 0 && !userCanonical(tls) {
		return -EINVAL
	}
	child, cgp := newThread(cpu)
	if child == nil {
		return -EAGAIN
	}
	child.frame = t.frame
	child.frame.AX = 0
	if stack != 0 {
		child.frame.SP = uint64(stack)
	}
	child.fsbase = t.fsbase
	if flags&cloneSettls != 0 {
		child.fsbase = tls
	}
	child.copyFP(t)
	child.sigmask = t.sigmask // signals stay blocked in the child until its minit unblocks them
	startThread(cgp, cpu)
	stats.threads++
	return int64(child.tid)
}

// userCanonical reports whether va is a user-half address.
func userCanonical(va uintptr) bool { return va < mm.UserEnd }

// threadExit ends the calling thread (exit(2)). Nothing of the user stack is touched: the runtime
// may already be reusing it (runtime-contract §0 risk 9).
func threadExit(t *Thread, gp sched.GID, cpu int) {
	t.state = threadDead
	S.Exit(cpu)
	*t = Thread{}
	if S.Live() == 0 {
		exitProcess(0)
	}
}

// exitProcess ends the whole program: exit_group(2), or a fatal signal. It reports the status on
// the control channel and stops QEMU through the isa-debug-exit device (docs/contract.md).
func exitProcess(code int) {
	var k kbuf
	if cmd.klog {
		k.s("log stats syscalls=").d(int64(stats.syscalls)).s(" signals=").d(int64(stats.signals)).
			s(" preemptions=").d(int64(stats.preemptions)).s(" threads=").d(int64(stats.threads)).s(" timer-arms=").d(int64(stats.timerArms)).
			s(" cpus=").d(int64(ncpu)).s(" shootdowns=").d(int64(stats.shootdowns)).
			s(" bkl-contended=").d(int64(stats.bklContended)).s(" bkl-wait-us=").d(int64(stats.bklSpinCycles * 1_000_000 / clock.tscHz)).record()
	}
	if cmd.trace {
		dumpTrace()
	}
	k.s("exit ").d(int64(code)).record()
	debugExit(uint8(code & 0x7f))
}

// debugExit writes v to QEMU's isa-debug-exit port (iobase 0xf4): QEMU exits with status
// (v<<1)|1. On a machine without the device the write is ignored, so halt forever after it.
func debugExit(v uint8) {
	// Let the UARTs finish sending (LSR bit 6, TEMT: transmitter and holding register empty;
	// PC16550D datasheet §8.4) so that QEMU has every byte before it exits.
	for _, base := range [...]uint16{0x3f8, 0x2f8, 0x3e8} {
		for i := 0; i < 100000 && amd64.Inb(base+5)&0x40 == 0; i++ {
		}
	}
	amd64.Outb(0xf4, v)
	for {
		amd64.Halt()
	}
}
