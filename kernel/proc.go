// Processes: the program and the children it starts with vfork and execve.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import (
	"sync/atomic"

	"gmpos/kernel/arch"
	"gmpos/kernel/mm"
	"gmpos/kernel/vfs"
	"gmpos/sched"
)

// A process (Linux's thread group with its mm, files and sighand) is what getpid names: its
// threads, an address space, an fd table, signal dispositions and a working directory. Process 0
// is the program the kernel was linked into; it runs until the machine stops. It may start
// children the way Go's os/exec does (syscall.forkAndExecInChild):
//
//	clone(CLONE_VM|CLONE_VFORK|SIGCHLD)  a new process sharing the parent's memory; the parent's
//	                                     thread sleeps until the child calls execve or exits
//	dup3, fcntl, chdir, rt_sigaction     in the child, on its own fd table and dispositions
//	execve(path, argv, envp)             the child gets a new address space: exec.go loads the
//	                                     executable, builds the stack, and wakes the parent
//	exit_group, wait4/waitid             the child becomes a zombie; SIGCHLD goes to the parent,
//	                                     whose wait reaps it
//
// Address spaces. The kernel and the program share one page table, mm.Kernel (kernel/mm/doc.go).
// A child that called execve has a page table of its own (mm.NewProcessTable): its memory is the
// exec region [mm.ExecBase, mm.ExecEnd) of that table, an mm.AddressSpace bounded to it, which
// the program's space reserves; everything else is the program's and the kernel's, reachable
// from the child's traps but not from its user code. Every child sees its own image at the same
// addresses: stock Go cannot build a relocatable static executable, so the runner links the
// program a second time at the exec region (qemu/runner ExecLinkFlags) as /bin/NAME, and only
// executables linked there run. The kernel runs on the page table of the thread it serves
// (setCurrent loads it), so user pointers are used as they are, as in Linux.
//
// Not supported: fork without CLONE_VM (a copy of the address space), process groups and
// sessions beyond the one group all processes share, stopped children (WSTOPPED), ptrace.
//
// Protected by the BKL.

// maxProcs bounds the processes that exist at once, zombies included.
const maxProcs = 16

type procState uint8

const (
	procFree    procState = iota
	procLive              // running
	procExiting           // exit_group or a fatal signal: its threads end at their next schedule
	procZombie            // every thread gone; waiting for the parent's wait
)

// process is one process.
type process struct {
	state procState
	// space is the process whose address space it uses: 0 the program's (mm.Space), k its own
	// (spaces[k]); a vfork child shares its parent's until execve.
	space      uint8
	parent     int8  // the parent's index; -1 for the program, or a child whose parent died
	exitSignal uint8 // the signal the parent gets at the child's death (clone's low byte)
	pid        int32 // the first thread's tid
	threads    int32 // live threads
	status     int32 // once exiting: the wait status (code<<8, or the killing signal)
	// vfork is the parent's thread sleeping in clone(CLONE_VFORK) until this process calls
	// execve or exits; 0 when none.
	vfork sched.GID

	fds        [maxFDs]fdSlot
	sigactions [nSig + 1]sigaction // dispositions (CLONE_SIGHAND: shared by all threads)
	// sigactSeq counts changes to sigactions (setSigaction): odd while one is under way, for
	// the readers without the BKL (loadSigaction).
	sigactSeq atomic.Uint32

	// The working directory (sys_path.go): an inode of the tree holding a reference, or a
	// directory inside a share (cwdShare >= 0, relative path cwdRel from its root).
	cwd      vfs.Ino
	cwdShare int
	cwdRel   p9Path
}

// procs is the process table; procs[0] is the program, live from boot. Its fds 0-2 are the
// console, statically (fd.go).
var procs = [maxProcs]process{
	0: {state: procLive, parent: -1, cwd: vfs.Root, cwdShare: -1,
		fds: [maxFDs]fdSlot{0: {file: 1}, 1: {file: 2}, 2: {file: 3}}},
}

// Children's address spaces, by process slot: the VMAs, the page table (kept for the slot's
// next process: mm never frees tables) and a generation that changes whenever the space is
// rebuilt or torn down, so that a core that still has the table loaded reloads it (loadRoot).
var (
	spaces   [maxProcs]mm.AddressSpace
	roots    [maxProcs]mm.PageTable
	spaceGen [maxProcs]uint32
)

// curProc is the process of the thread the current trap serves (trapLocked sets it; interrupts
// serve process 0). The fd table, dispositions and working directory that system calls use are
// its. BKL.
var curProc int

// cur is the current process.
func cur() *process { return &procs[curProc] }

// fds is the current process's fd table.
func fds() *[maxFDs]fdSlot { return &procs[curProc].fds }

// procOf is thread t's process.
func procOf(t *Thread) *process { return &procs[t.proc] }

// space is address space s (a process index: 0 the program's).
func space(s uint8) *mm.AddressSpace {
	if s == 0 {
		return &mm.Space
	}
	return &spaces[s]
}

// spaceOf is the address space of process k.
func spaceOf(k int) *mm.AddressSpace { return space(procs[k].space) }

// uspace is the address space whose VMAs userRange checks, and whose page table is loaded: the
// current process's, or, while a waker completes a sleeping thread's call, the sleeper's
// (enterProc). An index, not a pointer: no write barrier in trap context.
var uspace uint8

// userSpace is the address space userRange checks.
func userSpace() *mm.AddressSpace { return space(uspace) }

// setCurrent makes process k current (enterProc, exec) and loads its page table.
func setCurrent(k int) { setCurrentOn(arch.Current().ID(), k) }

// setCurrentOn is setCurrent for the trap path (trapLocked, schedule), which knows its core.
func setCurrentOn(cpu, k int) {
	curProc = k
	uspace = procs[k].space
	bklSpaces.Or(1 << uspace) // before its memory is touched (smp.go)
	loadRoot(cpu, uspace)
}

// rootOf is address space s's page table: the program's (space 0) is the kernel's own, a
// child's its slot's. Read without the BKL by the unlocked paths: roots change only in execve,
// which ends the space's other threads first.
func rootOf(s uint8) mm.PageTable {
	if s == 0 {
		return mm.Kernel
	}
	return roots[s]
}

// loadRoot makes address space s's page table core cpu's (the caller's own), unless it is
// already loaded and has not been rebuilt since (a reload flushes the TLB's user entries: SDM
// Vol. 3A §4.10.4.1).
func loadRoot(cpu int, s uint8) {
	root, gen := rootOf(s).Root, uint32(0)
	if s != 0 {
		gen = spaceGen[s]
	}
	c := &cpus[cpu]
	if c.root != root || c.rootGen != gen {
		// Published before the load, with a fence between: a shootdown that reads another
		// root here may skip this core (smp.go), since its walks through root begin after.
		atomic.StoreUintptr(&c.root, root)
		c.rootGen = gen
		arch.Fence()
		arch.SetPageTable(root)
	}
}

// enterProc makes gp's process current, for a waker that completes gp's call in another
// thread's trap (a 9P reply installs the fd it opened; epoll_wait's events go to its buffer);
// leaveProc restores the process it returns. gp 0 leaves the current one.
func enterProc(gp sched.GID) int {
	old := curProc
	if gp != 0 {
		setCurrent(int(threads[gp].proc))
	}
	return old
}

func leaveProc(old int) { setCurrent(old) }

// reserveExecRegion keeps the program's mmap away from the exec region: a pinned PROT_NONE VMA
// in its space, as device registers are reserved (kernel/mm MapDevice). Boot.
func reserveExecRegion() {
	if mm.Space.RegisterFixed(mm.ExecBase, mm.ExecEnd-mm.ExecBase, 0) != mm.OK {
		bootPanic("cannot reserve the exec region")
	}
}

// newProc finds a free process slot; -1 if none.
func newProc() int {
	for k := 1; k < maxProcs; k++ {
		if procs[k].state == procFree {
			return k
		}
	}
	return -1
}

// sysVfork is clone(CLONE_VM|CLONE_VFORK): a new process that shares the caller's memory and
// runs on the caller's stack until it calls execve or exits, while the caller's thread sleeps
// (kernel/fork.c copy_process + wait_for_vfork_done). The child gets a copy of the fd table
// (the open files shared, as fork's dup does), of the dispositions and of the working directory.
// Its result is 0; the parent's, the child's pid, set when it wakes.
func sysVfork(t *Thread, gp sched.GID, cpu int, flags uint64, stack uintptr) int64 {
	k := newProc()
	if k < 0 {
		return -EAGAIN
	}
	child, cgp := newThread(cpu)
	if child == nil {
		return -EAGAIN
	}
	parent := procOf(t)
	p := &procs[k]
	*p = process{state: procLive, space: parent.space, parent: int8(t.proc), exitSignal: uint8(flags & 0xff),
		pid: child.tid, threads: 1, cwd: parent.cwd, cwdShare: parent.cwdShare, cwdRel: parent.cwdRel}
	p.fds = parent.fds
	for fd := range p.fds {
		if fi := p.fds[fd].file; fi != 0 {
			files[fi-1].refs++
		}
	}
	p.sigactions = parent.sigactions
	vfs.Open(p.cwd)

	child.proc = uint8(k)
	child.frame = t.frame
	child.frame.SetSyscallResult(0)
	if stack != 0 {
		child.frame.SetStackPointer(stack)
	}
	child.tls = t.tls
	copyWords(child.fpArea(), t.fpState(), arch.FPStateSize)
	child.sigmask = t.sigmask
	child.altSP, child.altSize, child.altFlags = t.altSP, t.altSize, t.altFlags
	startThread(cgp, cpu)
	stats.threads++
	stats.processes++

	p.vfork = gp
	block(t, gp, cpu, waitVfork, 0)
	return 0
}

// vforkDone wakes the parent sleeping in vfork: the child has called execve or exited.
func vforkDone(p *process, cpu int) {
	if p.vfork != 0 {
		wakeThread(p.vfork, int64(p.pid), cpu)
		p.vfork = 0
	}
}

// procExit ends process k with wait status status: exit_group, or a fatal signal. Its threads
// end at their next pass through schedule: a sleeping one is woken for it, one running on
// another core is interrupted. The program (process 0) ends the machine instead.
func procExit(k int, status int32, cpu int) {
	if k == 0 {
		code := int(status>>8) & 0xff
		if status&0x7f != 0 {
			code = 128 + int(status&0x7f)
		}
		exitProcess(code) // never returns
	}
	p := &procs[k]
	if p.state != procLive {
		return
	}
	p.state, p.status = procExiting, status
	for i := 1; i < MaxThreads; i++ {
		gp := sched.GID(i)
		if !live(gp) || int(threads[i].proc) != k {
			continue
		}
		endWaitOrKick(gp, cpu) // blocked: EINTR; running elsewhere: it ends on its way back out
	}
}

// procThreadGone accounts for the end of one of process k's threads; the last one makes the
// process a zombie (or ends the machine, for the program: exit(2) of its last thread is status
// 0, as on Linux).
func procThreadGone(k int, cpu int) {
	p := &procs[k]
	if p.threads--; p.threads > 0 {
		return
	}
	if k == 0 {
		exitProcess(0)
	}
	if p.state == procLive { // the last thread called exit: status 0
		p.status = 0
	}
	procDied(k, cpu)
}

// procDied releases what process k held — its fds, its working directory, its address space —
// and tells its parent (kernel/exit.c do_exit → exit_notify).
func procDied(k int, cpu int) {
	p := &procs[k]
	p.state = procZombie
	for fd := range p.fds {
		if fi := p.fds[fd].file; fi != 0 {
			setFD(&p.fds, fd, fdSlot{})
			putFile(int(fi) - 1)
		}
	}
	vfs.Close(p.cwd)
	if int(p.space) == k { // its own (after execve); a vfork child's is its parent's
		spaces[k].Teardown()
		spaceGen[k]++
	}
	vforkDone(p, cpu)
	// Orphans: children of k have no one to wait for them; zombies go now, the living when
	// they die (Linux hands them to init, which reaps them).
	for c := 1; c < maxProcs; c++ {
		if procs[c].state != procFree && int(procs[c].parent) == k {
			procs[c].parent = -1
			if procs[c].state == procZombie {
				procs[c] = process{}
			}
		}
	}
	if p.parent < 0 {
		*p = process{}
		return
	}
	parent := int(p.parent)
	if p.exitSignal != 0 {
		if gp := groupTarget(parent, 0, int(p.exitSignal)); gp != 0 {
			postSignal(&threads[gp], gp, int(p.exitSignal), cpu)
		}
	}
	// Every thread of the parent waiting for a child looks again.
	for i := 0; i < waiters.n; {
		gp := waiters.g[i]
		if threads[gp].wait == waitChild && int(threads[gp].proc) == parent {
			wakeToRestart(gp, cpu) // swaps the last waiter into slot i
			continue
		}
		i++
	}
}

// procByPid is the live or zombie process whose pid is pid; -1 if none.
func procByPid(pid int32) int {
	for k := 0; k < maxProcs; k++ {
		if procs[k].state != procFree && procs[k].pid == pid {
			return k
		}
	}
	return -1
}

// waitStatusSignal is the wait status of a process killed by sig (WIFSIGNALED).
func waitStatusSignal(sig int) int32 { return int32(sig & 0x7f) }

// waitStatusExit is the wait status of a process that exited with code (WIFEXITED).
func waitStatusExit(code int) int32 { return int32(code&0xff) << 8 }
