// execve: a process gets a new program (proc.go).
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"gmpos/kernel/arch"
	"gmpos/kernel/elf"
	"gmpos/kernel/mm"
	"gmpos/kernel/vdso"
	"gmpos/kernel/vfs"
	"gmpos/sched"
)

// execve (fs/exec.c do_execveat_common, fs/binfmt_elf.c load_elf_binary) in two halves:
//
//  1. Everything that can fail cleanly, with the caller's image untouched: the path walk, the
//     permission bits, the ELF headers (kernel/elf), the exec region being free, and the copy
//     of argv and envp into the kernel (execArgs), since the memory they are in may go.
//  2. The point of no return: the old address space goes (a vfork child never had one of its
//     own), the segments are mapped and filled from the file, the stack gets argc, argv, envp
//     and auxv as at boot (stack.go), the vDSO is mapped, close-on-exec fds are closed, caught
//     signals go back to their default, every other thread of the process ends, and the
//     calling thread starts at the entry point. A failure here kills the process with SIGKILL,
//     as Linux's does after flush_old_exec.
//
// The executable must be a file of the tree (a share's is ENOEXEC) linked at the exec region
// (the runner's /bin/NAME is; kernel/elf says why anything else is refused). The new address
// space is the process slot's page table (proc.go), built on the first execve in that slot.

// Where a child's stack and vDSO go: the top of the exec region, as the program's are at the
// top of the user half (kernel/mm/doc.go, "Memory map").
const (
	execStackTop = mm.ExecEnd - 1<<20
	execVvar     = mm.ExecEnd - 1<<19
	execVdso     = execVvar + vdso.PageSize
	execMmapTop  = execStackTop - userStackSize - 1<<30 // the top-down mmap search starts here

	execArgMax     = 256 << 10 // bytes of argv and envp strings (Linux: a quarter of the stack, 2 MiB)
	execMaxStrings = 8192      // argv and envp entries together
)

// execArgs holds argv and envp between the two halves. BKL.
var execArgs struct {
	buf        [execArgMax]byte
	off        [execMaxStrings + 1]uint32 // string i is buf[off[i]:off[i+1]-1] (NUL-terminated)
	n          int                        // bytes used
	argc, nenv int
	addrs      [execMaxStrings]uintptr // where writeExecImage put each string
}

// execHdr is the first page of the executable: the ELF header and program headers. BKL.
var execHdr [4096]byte

// sysExecve replaces the calling process's program. done: the thread's registers are the new
// program's (the call does not return), or the process is gone.
func sysExecve(t *Thread, gp sched.GID, cpu int, path, argv, envp uintptr) (int64, bool) {
	w, e := existing(0, atFDCWD, path, true)
	if e != 0 {
		return e, false
	}
	if w.remote() {
		return -ENOEXEC, false // a share's file would need its bytes fetched over 9P first
	}
	in := vfs.Get(w.Ino)
	if !in.IsReg() || in.Mode&0o111 == 0 {
		return -EACCES, false
	}
	n := vfs.Read(w.Ino, 0, execHdr[:])
	img, why := elf.Parse(execHdr[:n], in.Size, uint64(mm.ExecBase), uint64(execMmapTop), elfMachine)
	if why != "" {
		var k kbuf
		k.s("log execve: ").bytes(pathBuf[0][:max(pathLen[0], 0)]).s(": ").s(why).record()
		return -ENOEXEC, false
	}
	p := cur()
	k := curProc
	if roots[k].Root == 0 { // the slot's first process with a space of its own
		pt, e := mm.NewProcessTable(mm.ExecBase, mm.ExecEnd)
		if e != mm.OK {
			return -ENOMEM, false
		}
		roots[k] = pt
	}
	execArgs.n, execArgs.argc, execArgs.nenv = 0, 0, 0
	if e := copyStrings(argv, &execArgs.argc); e != 0 {
		return e, false
	}
	if e := copyStrings(envp, &execArgs.nenv); e != 0 {
		return e, false
	}

	// The point of no return. The other threads end first (de_thread), before the image they run
	// is torn down: a runnable one that a core picks up without the BKL meanwhile sees killed
	// and hands over to the BKL instead of running its old code on the new image
	// (wake_unlocked.go); one in user mode on another core is kicked.
	for i := 1; i < MaxThreads; i++ { // de_thread: the caller is the process's only thread
		if o := sched.GID(i); o != gp && live(o) && int(threads[i].proc) == k {
			threads[i].killed = true
			endWaitOrKick(o, cpu) // blocked: EINTR; running elsewhere: it ends on its way back out
		}
	}
	// A thread amid a write to the console without the BKL copies from the old image until it
	// leaves vconLock; one about to enter it sees killed inside (console_unlocked.go). Taking
	// the lock once orders both before the teardown. The same for epoll_wait and eventfd
	// without the BKL and epollLock (poll_unlocked.go).
	vconLock.lock(cpu)
	vconLock.unlock(cpu)
	epollLock.lock(cpu)
	epollLock.unlock(cpu)
	if int(p.space) == k {
		spaces[k].Teardown()
	}
	spaceGen[k]++
	spaces[k].Reset(roots[k])
	spaces[k].SetBounds(mm.ExecBase, mm.ExecEnd, execMmapTop)
	p.space = uint8(k)
	setCurrent(k) // the new, empty page table: the loads below fill it
	sp, ok := execLoad(w.Ino, &img)
	if !ok {
		klog("execve: out of memory loading the executable: the process is killed")
		procExit(k, waitStatusSignal(sigKILL), cpu)
		return 0, true
	}
	for fd := range p.fds {
		if p.fds[fd].file != 0 && p.fds[fd].cloexec {
			closeFD(int32(fd))
		}
	}
	for sig := range p.sigactions {
		if p.sigactions[sig].handler != sigIGN {
			setSigaction(p, int32(sig), sigaction{})
		}
	}
	t.frame = arch.NewUserFrame(uintptr(img.Entry), sp)
	arch.InitFPState(t.fpState())
	t.tls = 0
	t.altSP, t.altSize, t.altFlags = 0, 0, 0
	t.named = false
	vforkDone(p, cpu)
	return 0, true
}

// copyStrings copies the NULL-terminated array of strings at v (NULL: none) to execArgs,
// counting them in *count: EFAULT for a bad pointer, E2BIG past the limits.
func copyStrings(v uintptr, count *int) int64 {
	if v == 0 {
		return 0
	}
	for i := uintptr(0); ; i++ {
		if !userRange(v+8*i, 8, false) {
			return -EFAULT
		}
		s := uintptr(load64(v + 8*i))
		if s == 0 {
			return 0
		}
		j := execArgs.argc + execArgs.nenv
		if j >= execMaxStrings {
			return -E2BIG
		}
		execArgs.off[j] = uint32(execArgs.n)
		for {
			if execArgs.n == execArgMax {
				return -E2BIG
			}
			c := min(uintptr(execArgMax-execArgs.n), 4096-s&4095)
			if !userRange(s, c, false) {
				c = 1 // this page byte by byte
				if !userRange(s, 1, false) {
					return -EFAULT
				}
			}
			end := false
			for _, b := range userBytes(s, c) {
				execArgs.buf[execArgs.n] = b
				execArgs.n++
				if b == 0 {
					end = true
					break
				}
			}
			if end {
				break
			}
			s += c
		}
		*count++
		execArgs.off[j+1] = uint32(execArgs.n)
	}
}

// execString is argv/envp string i (without its NUL).
func execString(i int) []byte { return execArgs.buf[execArgs.off[i] : execArgs.off[i+1]-1] }

// execLoad maps img's segments in the current process's new space from file ino, then the stack
// and the vDSO, and returns the initial stack pointer.
func execLoad(ino vfs.Ino, img *elf.Image) (uintptr, bool) {
	as := userSpace()
	for i := 0; i < img.N; i++ {
		s := &img.Seg[i]
		start := uintptr(s.Vaddr) &^ (mm.PageSize - 1)
		end := (uintptr(s.Vaddr+s.Memsz) + mm.PageSize - 1) &^ (mm.PageSize - 1)
		if _, e := as.Mmap(start, end-start, mm.PROT_READ|mm.PROT_WRITE,
			mm.MAP_PRIVATE|mm.MAP_ANONYMOUS|mm.MAP_FIXED, mm.NoFile, 0); e != mm.OK {
			return 0, false
		}
		if !as.UserRange(start, end-start, true) {
			return 0, false
		}
		if s.Filesz > 0 {
			vfs.Read(ino, int64(s.Off), userBytes(uintptr(s.Vaddr), uintptr(s.Filesz)))
			if s.Flags&elf.PF_X != 0 {
				arch.SyncICache(uintptr(s.Vaddr), uintptr(s.Filesz)) // code written by data stores
			}
		}
		prot := uint32(0)
		if s.Flags&elf.PF_R != 0 {
			prot |= mm.PROT_READ
		}
		if s.Flags&elf.PF_W != 0 {
			prot |= mm.PROT_WRITE
		}
		if s.Flags&elf.PF_X != 0 {
			prot |= mm.PROT_EXEC
		}
		if as.Mprotect(start, end-start, uint64(prot)) != mm.OK {
			return 0, false
		}
	}
	base := uintptr(execStackTop - userStackSize)
	if as.RegisterFixed(base, userStackSize, mm.PROT_READ|mm.PROT_WRITE) != mm.OK {
		return 0, false
	}
	need := (uintptr(execArgs.n) + 8*uintptr(execArgs.argc+execArgs.nenv) + 64<<10 + mm.PageSize - 1) &^ (mm.PageSize - 1)
	if !as.UserRange(execStackTop-need, need, true) {
		return 0, false
	}
	ehdr := uintptr(0)
	if vdsoState.text != 0 &&
		as.MapSpecial(execVvar, vdsoState.vvar, mm.PageSize, mm.PROT_READ) == mm.OK &&
		as.MapSpecial(execVdso, vdsoState.text, mm.PageSize, mm.PROT_READ|mm.PROT_EXEC) == mm.OK &&
		vdsoState.ehdr != 0 {
		ehdr = execVdso // not with vdso=0, which maps arm64's page only for its signal trampoline
	}
	var random [16]byte
	randomBytes(&random)
	return writeExecImage(execStackTop, &random, ehdr), true
}

// writeExecImage writes the new program's argv and envp (execArgs), the AT_RANDOM bytes and
// the auxiliary vector below top, as writeProcessImage does at boot, and returns the SP.
func writeExecImage(top uintptr, random *[16]byte, ehdr uintptr) uintptr {
	randomAddr := putRandom(top, random)
	w := userWriter{sp: randomAddr}
	execfn := w.bytes(pathBuf[0][:max(pathLen[0], 0)])
	// The strings, then the pointer arrays, so that argv[i] is the address written for string i.
	n := execArgs.argc + execArgs.nenv
	addrs := &execArgs.addrs
	for i := n - 1; i >= 0; i-- {
		addrs[i] = w.bytes(execString(i))
	}
	w.sp &^= 15
	aux, naux := auxVector(randomAddr, execfn, ehdr)
	return pushVectors(&w, addrs[:execArgs.argc], addrs[execArgs.argc:n], aux[:naux])
}
