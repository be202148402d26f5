// Kernel accesses to user memory that may fault: LoadUser32, CopyUser and the exception table.
// SPDX-License-Identifier: BSD-3-Clause

package amd64

import "sync/atomic"

// LoadUser32 reads the 4-byte word at user address addr through the current page table. The
// caller has checked that addr is 4-aligned and below the end of the user half; what it cannot
// check without the big kernel lock is that the page stays mapped, because another core's munmap
// may remove it in between. If the read faults (#PF: no readable mapping), the fault
// handler's FixupUserAccess resumes the routine at loadUser32Fail, and ok is false.
//
// It is one aligned MOVL, which is atomic (SDM Vol. 3A §9.1.1 "Guaranteed Atomic Operations")
// and, as every x86 load, not reordered with earlier loads (§9.2.2 "Memory Ordering in P6 and
// More Recent Processor Families"): the instruction of Go's atomic.LoadUint32 on amd64. Like
// that, it does not order an earlier store before it: a futex waiter needs Fence for that.
//
// The kernel may read the user half directly: it runs at CPL 0 with CR4.SMAP and CR4.SMEP clear
// (boot_amd64.h sets only PAE, OSFXSR and OSXMMEXCPT; SDM Vol. 3A §4.6.1 "Determination of
// Access Rights"). It could not be otherwise: the kernel's own image is mapped user-accessible
// (doc.go), so with SMAP every kernel data access would fault.
//
// Implemented in uaccess_amd64.s: LoadUser32 loads addr into AX and jumps to loadUser32Insn,
// whose first instruction is the load — so the faulting RIP is a symbol's address, known exactly.
func LoadUser32(addr uintptr) (v uint32, ok bool)

// loadUser32Insn is LoadUser32's second half, not callable from Go: the address is in AX, and
// its first instruction is the only one of LoadUser32 that touches user memory. Declared for its
// argument frame, which is LoadUser32's (go vet's asmdecl checks the offsets against it).
func loadUser32Insn(addr uintptr) (v uint32, ok bool)

// loadUser32Fail is the failure exit: it stores v = 0, ok = false in LoadUser32's result slots
// and returns to LoadUser32's caller. FixupUserAccess resumes a faulted load here with every
// register as the fault left it: neither half of LoadUser32 has a frame of its own, so RSP still
// points at the return address and the argument frame is where the failure exit expects it.
func loadUser32Fail(addr uintptr) (v uint32, ok bool)

// CopyUser copies n bytes from src to dst, where one or both lie in the user half, through the
// current page table, and reports whether it got through: a fault on either side (#PF: no
// mapping that allows the access) ends the copy there, and the fault handler's FixupUserAccess
// resumes it at copyUserFail — a prefix may have been copied, the rest not. The caller has
// checked that the user range lies below the end of the user half; what it cannot check without
// the big kernel lock is that the pages stay mapped. Linux's copy_from_user and copy_to_user
// (arch/x86/lib/copy_user_64.S), with the exception table's two entries. Implemented in
// uaccess_amd64.s: words with REP MOVSQ, then bytes with REP MOVSB, each the first instruction
// of a symbol of its own (copyUserWords, copyUserBytes), so that the faulting RIP is a known
// address; like LoadUser32's, no routine has a frame, so the failure exit returns to
// CopyUser's caller.
func CopyUser(dst, src, n uintptr) (ok bool)

// copyUserWords, copyUserBytes and copyUserFail are CopyUser's parts, not callable from Go: the
// copy's registers (DI, SI, CX, and DX for the bytes after the words) are set. Declared for their
// argument frame, which is CopyUser's (go vet's asmdecl checks the offsets against it).
func copyUserWords(dst, src, n uintptr) (ok bool)
func copyUserBytes(dst, src, n uintptr) (ok bool)
func copyUserFail(dst, src, n uintptr) (ok bool)

// fixups is the exception table: pairs of (the address of an instruction that may fault on user
// memory, the failure exit to resume at instead), stored by the linker (DATA/GLOBL in
// uaccess_amd64.s: a definition with content takes the place of this zero-valued one). Go code
// outside the runtime has no abi.FuncPCABI0, and a table read in the trap handler is simpler
// than an assembly helper that returns the addresses.
var fixups [3][2]uintptr

// userFixups counts the faults FixupUserAccess fixed, across cores.
var userFixups atomic.Uint64

// FixupUserAccess is called by the kernel's trap for a fault taken in kernel mode. If it is a
// page fault or general-protection fault (a non-canonical address; the caller's check should
// exclude it, but the fix is the same) at an instruction of the exception table (fixups:
// LoadUser32's load, CopyUser's two copies), it points the frame at that entry's failure exit, so
// that resuming it (IRETQ restores RIP, RSP and every register, trap_amd64.s) returns ok = false
// to the routine's caller; it counts the fix and reports true. Anything else is a real kernel
// fault: false, and the caller reports it. This is Linux's exception table
// (arch/x86/mm/extable.c, fixup_exception) reduced to its three entries.
//
// Trap context: no allocation, no write barriers (the frame holds no pointers).
func FixupUserAccess(f *Frame) bool {
	if f.FromUser() || (f.Vector != VecPage && f.Vector != VecGP) {
		return false
	}
	for _, e := range fixups {
		if uintptr(f.IP) == e[0] {
			f.IP = uint64(e[1])
			userFixups.Add(1)
			return true
		}
	}
	return false
}

// UserFixups returns how many faults FixupUserAccess has fixed, for the kernel's statistics.
func UserFixups() uint64 { return userFixups.Load() }
