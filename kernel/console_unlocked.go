// The console's writes without the big kernel lock.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"
	"unsafe"

	"gmpos/kernel/arch"
)

// Why. A program's output — fmt.Println, log, a test's -v lines — is write(2) on fd 1 or 2,
// and under the BKL a 128 KiB write held every other core's kernel work for 0.6-0.7 ms under
// TCG while it copied into the virtio console's ring (vconsole.go). The device has its own lock
// now (vconLock), so a write to the console needs the BKL for nothing but finding the file
// behind its fd; this path does that under fdSeq instead (fd.go: the fd tables' sequence count,
// the counterpart of the RCU read Linux's fdget makes) and writes with vconLock alone.
//
// The write is the BKL path's (vconWrite) for a blocking file — all of it into the ring, or
// nothing — but for where the bytes come from: another thread of the program may unmap the
// buffer meanwhile, and no BKL section keeps it (smp.go bklSpaces). So, with vconLock held, the
// whole buffer is looked up in the loaded page table (PeekUserRange), then copied into the
// ring with arch.CopyUser, whose exception-table entry turns a page taken away meanwhile — an
// munmap, mprotect or madvise without the BKL clears the entry at once (mm_unlocked.go) — into
// a failed copy; the driver then takes the whole write back (WriteFrom) and the BKL's path
// does it (faulting a dropped page in, as Linux would, or answering EFAULT). The frames stay
// the program's meanwhile: they join the free list only after a shootdown this core must
// acknowledge (smp.go), and vconLock's holder acknowledges none. execve is the one change that
// must not happen mid-copy, as its new image could be mapped where the buffer was: it takes
// vconLock once it has marked the process's other threads (exec.go), and a writer that finds
// itself unmarked inside the lock copies before the teardown.
//
// Anything else goes to sysWrite under the BKL, unchanged, before a byte is written: an fd that
// is not a console file open for writing, or one with O_NONBLOCK (which takes what fits), or
// an fd table that changed while it was read; a buffer not mapped and readable now (the BKL
// path faults it in, or answers EFAULT); no room in the ring (the BKL path waits for the
// completion interrupt, which only it may arrange: the waiters are the BKL's); the UARTs (they
// send with interrupts off, byte by byte, and are the board's); a thread that needs the kernel
// on its way out; and strace or the scheduler trace, which log under the BKL. While writers
// are parked under the BKL waiting for room (vcon.waiting), every write joins them there: a
// thread writing short lines here would otherwise keep taking the room they wait for.
//
// The kernel option conbkl=1 keeps every console write under the BKL, for comparisons.
//
// Context: trap context (doc.go), without the BKL; vconLock is taken for the write.

// consoleUnlockedOK reports whether the system call in f, from the thread running on core cpu,
// is a write this path may try: write(2) with the virtio console up and nothing on that needs
// the BKL. Whether fd is a console file is consoleUnlocked's to find out.
func consoleUnlockedOK(f *arch.Frame, cpu int) bool {
	if nr, _ := syscallNr(f); nr != nrWrite {
		return false
	}
	gp := cpus[cpu].cur
	return gp != 0 && vcon.up && !cmd.conBKL && !cmd.trace && !cmd.strace && !needsKernel(&threads[gp])
}

// consoleUnlocked runs the write consoleUnlockedOK accepted (trap n, entered at cycle t0): on
// the console without the BKL, or — having written nothing — as sysWrite under it.
func consoleUnlocked(f *arch.Frame, n, cpu int, t0 uint64) *arch.Frame {
	gp := cpus[cpu].cur
	t := &threads[gp]
	_, a := syscallArgs(f)
	buf, count := uintptr(a[1]), uintptr(a[2])
	ch, ok, console := fdPeekConsole(procOf(t), int32(a[0]))
	if !console {
		return trapBKL(f, arch.TrapSyscall, n, cpu, t0) // another kind of file: sysWrite's
	}
	done := uintptr(0)
	if ok && count != 0 && accessOK(buf, count) { // the whole count, as sysWrite checks it
		done = vconWriteUnlocked(t, ch, buf, min(count, vconMaxWrite), cpu)
	}
	if done == 0 {
		atomic.AddUint64(&stats.consoleFallbacks, 1)
		return trapBKL(f, arch.TrapSyscall, n, cpu, t0)
	}
	b := ktimeBucket(f, arch.TrapSyscall) // before the result: on amd64 it replaces the number
	f.SetSyscallResult(uint64(done))
	atomic.AddUint64(&stats.unlockedConsole, 1)
	atomic.AddUint64(&stats.syscalls, 1)
	return resumeSame(f, cpu, gp, t0, b) // nothing for the timer to look at again
}

// fdPeekConsole finds, without the BKL, the console channel that fd of process p writes to.
// console: fd names a console file (else the write is not this path's business); ok: one open
// for writing, blocking, on the program's output, and the fd tables and open files held still
// while it looked (fdPeek). The thread asking is p's and running, so p lives on.
func fdPeekConsole(p *process, fd int32) (ch int, ok, console bool) {
	v, still := fdPeek(p, fd)
	if v.kind != kindConsole {
		return 0, false, false
	}
	// O_NONBLOCK takes what fits (vconWrite): the BKL's, as are the UARTs and fd 0.
	ok = still && v.flags&oAccmode != oRdonly && v.flags&oNonblock == 0 && v.priv != consoleStdin
	return int(v.priv), ok, true
}

// vconWriteUnlocked is vconWrite without the BKL for a blocking file: it writes the n bytes at
// buf on channel ch, all of them, and returns how many it wrote — 0, nothing written, when the
// ring has no room for them or writers parked under the BKL wait for room (theirs first), a page
// of the buffer is not mapped and readable now or stops being so during the copy (WriteFrom
// takes it back), the port has closed or t is ending: the caller then leaves the whole call to
// the BKL's path.
func vconWriteUnlocked(t *Thread, ch int, buf, n uintptr, cpu int) uintptr {
	vconLock.lock(cpu)
	// execve takes the lock after marking the process's other threads (exec.go): one that finds
	// itself unmarked here copies before the image is torn down.
	if t.killed || procOf(t).state != procLive || !vcon.dev.Open() || vcon.waiting {
		vconLock.unlock(cpu)
		return 0
	}
	vcon.dev.Reap()
	done := uintptr(0)
	if vcon.dev.Space() >= vconRoom(n) && loadedReadable(buf, n) {
		src := buf
		done = uintptr(vcon.dev.WriteFrom(uint8(ch), int(n), func(dst []byte) bool {
			ok := arch.CopyUser(uintptr(unsafe.Pointer(unsafe.SliceData(dst))), src, uintptr(len(dst)))
			src += uintptr(len(dst))
			return ok
		}))
		vcon.dev.Submit()
	}
	vconLock.unlock(cpu)
	return done
}
