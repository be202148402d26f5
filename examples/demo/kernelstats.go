package main

import (
	"fmt"
	"syscall"
	"unsafe"
)

// kernelStats asks the gmpos kernel, through its own system call gmpos_info, how its scheduler
// spread this program's threads over the cores (the runtime's Ms are the kernel's Gs). Anywhere
// else the call fails with ENOSYS and the demo says nothing: the rest of the program is ordinary Go.
func kernelStats() {
	const (
		sysGmposInfo = 0x6d70
		infoSched    = 2 // scheduler counters, in sched.Stat order
		infoCPUs     = 5 // threads started per core
	)
	var perCPU [16]uint64
	n, _, e := syscall.Syscall(sysGmposInfo, infoCPUs, uintptr(unsafe.Pointer(&perCPU[0])), uintptr(len(perCPU)))
	if e != 0 {
		return
	}
	var st [19]uint64
	if _, _, e := syscall.Syscall(sysGmposInfo, infoSched, uintptr(unsafe.Pointer(&st[0])), uintptr(len(st))); e != 0 {
		return
	}
	// Indexes of sched.Stat: ctx switches 0, runnext hits 1, steals 5, preemptions 7, wakeps 9.
	fmt.Printf("kernel scheduler: %d cores, threads started per core %v; %d switches (%d from runnext), %d steals, %d preemptions, %d wakeps\n",
		n, perCPU[:n], st[0], st[1], st[5], st[7], st[9])
}
