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
// The write is the BKL path's (vconWrite), but for where the bytes come from: another thread
// of the program may unmap the buffer meanwhile, and no BKL section keeps it (smp.go
// bklSpaces). So each piece is looked up in the loaded page table (PeekUserRange) and copied
// into the ring with arch.CopyUser, whose exception-table entry turns a page taken away in
// between into a failed copy, which the driver takes back (WriteFrom). The lookup and the copy run
// back to back with vconLock held, which acknowledges no shootdown, so a page the lookup found
// stays the program's until the copy is over: an munmap on another core waits for this core's
// acknowledgement before it frees the frame (smp.go).
//
// Anything else goes to sysWrite under the BKL, unchanged, before a byte is written: an fd that
// is not a console file open for writing (or an fd table that changed while it was read), a
// buffer the first piece of which is not mapped and readable now (the BKL path faults it in, or
// answers EFAULT), a full ring (the BKL path waits for the completion interrupt, which only it
// may arrange: the waiters are the BKL's), the UARTs (they send with interrupts off, byte by
// byte, and are the board's), a thread that needs the kernel on its way out, and strace or the
// scheduler trace, which log under the BKL. A later piece that cannot be read ends the write
// short (what POSIX allows and Go's os.File.Write continues): its next call takes the BKL's path.
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
	ch, ok := fdPeekConsole(procOf(t), int32(a[0]))
	if !ok || count == 0 || !accessOK(buf, count) { // the whole count, as sysWrite checks it
		atomic.AddUint64(&stats.consoleFallbacks, 1)
		return trapBKL(f, arch.TrapSyscall, n, cpu, t0)
	}
	b := ktimeBucket(f, arch.TrapSyscall) // before the result: on amd64 it replaces the number
	done := vconWriteUnlocked(ch, buf, min(count, vconMaxWrite), cpu)
	if done == 0 {
		atomic.AddUint64(&stats.consoleFallbacks, 1)
		return trapBKL(f, arch.TrapSyscall, n, cpu, t0)
	}
	f.SetSyscallResult(uint64(done))
	atomic.AddUint64(&stats.unlockedConsole, 1)
	atomic.AddUint64(&stats.syscalls, 1)
	return resumeSame(f, cpu, gp, t0, b) // nothing for the timer to look at again
}

// fdPeekConsole finds, without the BKL, the console channel that fd of process p writes to:
// false unless fd is a console file open for writing, and the fd tables and open files held
// still while it looked (fdSeq). The thread asking is p's and running, so p lives on.
func fdPeekConsole(p *process, fd int32) (ch int, ok bool) {
	if fd < 0 || int(fd) >= maxFDs {
		return 0, false
	}
	s := fdSeq.Load()
	if s&1 != 0 {
		return 0, false // a BKL section is changing a slot or freeing a file
	}
	fi := int(p.fds[fd].file) - 1
	if fi < 0 {
		return 0, false
	}
	fl := &files[fi]
	kind, flags, priv := fl.kind, fl.flags, fl.priv
	arch.Fence() // the reads above before the second look (arm64 may otherwise reorder them)
	if fdSeq.Load() != s || kind != kindConsole || flags&oAccmode == oRdonly || priv == consoleStdin {
		return 0, false
	}
	return int(priv), true
}

// vconWriteUnlocked is vconWrite without the BKL: it writes up to n bytes at buf on channel ch
// and returns how many the ring took — 0 when the first piece cannot be read now, the ring is
// full or the port has closed (the caller then leaves the whole call to the BKL's path). Each
// piece is copied from the program's memory straight into the ring (WriteFrom), which takes it
// back if the copy fails.
func vconWriteUnlocked(ch int, buf, n uintptr, cpu int) uintptr {
	vconLock.lock(cpu)
	vcon.dev.Reap()
	done := uintptr(0)
	for done < n {
		c := min(n-done, consolePiece)
		if !loadedReadable(buf+done, c) {
			break
		}
		src := buf + done
		w := uintptr(vcon.dev.WriteFrom(uint8(ch), int(c), func(dst []byte) bool {
			ok := arch.CopyUser(uintptr(unsafe.Pointer(unsafe.SliceData(dst))), src, uintptr(len(dst)))
			src += uintptr(len(dst))
			return ok
		}))
		done += w
		if w < c {
			break
		}
	}
	if done > 0 {
		vcon.dev.Submit()
	}
	vconLock.unlock(cpu)
	return done
}
