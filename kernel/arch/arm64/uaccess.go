// Kernel accesses to user memory that may fault: LoadUser32, CopyUser and the exception table.
// SPDX-License-Identifier: BSD-3-Clause

//go:build arm64

package arm64

import "sync/atomic"

// LoadUser32 reads the 4-byte word at user address addr through the current page table. The
// caller has checked that addr is 4-aligned and below the end of the user half; what it cannot
// check without the big kernel lock is that the page stays mapped, because another core's munmap
// may remove it in between. If the read faults (a data abort: translation or permission fault),
// the fault handler's FixupUserAccess resumes the routine at loadUser32Fail, and ok is false.
//
// The load is LDAR, a load-acquire, single-copy atomic for an aligned word (ARM ARM B2.2.1
// "Requirements for single-copy atomicity"; B2.3, "Load-Acquire, Store-Release"): the
// instruction of Go's atomic.LoadUint32 on arm64, so the kernel may treat the word as it treats
// atomics. LDAR takes an alignment fault on a misaligned address whatever SCTLR_EL1.A says
// (B2.5, "Alignment support"); the caller's alignment check excludes it, and that data abort
// would be fixed up like any other.
//
// The kernel may read the user half directly: PSTATE.PAN (FEAT_PAN, Privileged Access Never) is
// never set — the entry's SPSR_EL2/EL3 value 0x3c5 has PAN (bit 22) clear, no code writes PAN,
// and SCTLR_EL1.SPAN = 1 keeps exception entry from setting it (boot.go, D17.2.118). It could
// not be otherwise: the kernel's own image is mapped EL0-accessible (doc.go), so with PAN set
// every kernel data access would fault.
//
// Implemented in uaccess_arm64.s: LoadUser32 loads addr into R0 and branches to loadUser32Insn,
// whose first instruction is the load — so the faulting ELR_EL1 is a symbol's address, known
// exactly.
func LoadUser32(addr uintptr) (v uint32, ok bool)

// loadUser32Insn is LoadUser32's second half, not callable from Go: the address is in R0, and
// its first instruction is the only one of LoadUser32 that touches user memory. Declared for its
// argument frame, which is LoadUser32's (go vet's asmdecl checks the offsets against it).
func loadUser32Insn(addr uintptr) (v uint32, ok bool)

// loadUser32Fail is the failure exit: it stores v = 0, ok = false in LoadUser32's result slots
// and returns to LoadUser32's caller. FixupUserAccess resumes a faulted load here with every
// register as the fault left it: all three routines are frameless leaves, so RSP still points
// at the caller's argument frame and LR (R30) still holds the return address.
func loadUser32Fail(addr uintptr) (v uint32, ok bool)

// CopyUser copies n bytes from src to dst, where one or both lie in the user half, through the
// current page table, and reports whether it got through: a fault on either side (a data abort:
// no mapping that allows the access) ends the copy there, and the fault handler's
// FixupUserAccess resumes it at copyUserFail — a prefix may have been copied, the rest not. The
// caller has checked that the user range lies below the end of the user half; what it cannot
// check without the big kernel lock is that the pages stay mapped. Linux's copy_from_user and
// copy_to_user (arch/arm64/lib/copy_from_user.S, whose every user access is in the exception
// table). Implemented in uaccess_arm64.s: a loop of words, then bytes, in one routine
// (copyUser) whose four user accesses are at fixed offsets the exception table names; like
// LoadUser32's, the routines are frameless leaves, so the failure exit returns to CopyUser's
// caller. Every boot faults each entry once (the kernel's checkUserFixup), so a table that
// missed its instruction would stop the boot.
func CopyUser(dst, src, n uintptr) (ok bool)

// copyUser and copyUserFail are CopyUser's loop and failure exit, not callable from Go: the
// copy's registers (R0 dst, R1 src, R2 the bytes left, R3 the datum in flight) are set.
// Declared for their argument frame, which is CopyUser's (go vet's asmdecl checks the offsets
// against it).
func copyUser(dst, src, n uintptr) (ok bool)
func copyUserFail(dst, src, n uintptr) (ok bool)

// fixups is the exception table: pairs of (the address of an instruction that may fault on user
// memory, the failure exit to resume at instead), stored by the linker (DATA/GLOBL in
// uaccess_arm64.s: a definition with content takes the place of this zero-valued one). Go code
// outside the runtime has no abi.FuncPCABI0, and a table read in the trap handler is simpler
// than an assembly helper that returns the addresses.
var fixups [5][2]uintptr

// userFixups counts the faults FixupUserAccess fixed, across cores.
var userFixups atomic.Uint64

// FixupUserAccess is called by the kernel's trap for a fault taken in kernel mode. If it is a
// data abort taken at EL1 (ESR_EL1.EC = 0x25) at an instruction of the exception table (fixups:
// LoadUser32's load, CopyUser's loads and stores), it points the frame's ELR_EL1 at that entry's
// failure exit, so that resuming it (vectors_arm64.s restores X0-X30, pops the kernel frame back
// to the interrupted SP and ERETs to ELR_EL1) returns ok = false to the routine's caller; it
// counts the fix and reports true. Anything else is a real kernel fault: false, and the caller
// reports it. This is Linux's exception table (arch/arm64/mm/extable.c, fixup_exception)
// reduced to its five entries.
//
// Call it after SpuriousFault: a translation fault on a page another core has just mapped is
// retried there rather than failed here.
//
// Trap context: no allocation, no write barriers (the frame holds no pointers).
func FixupUserAccess(f *Frame) bool {
	if f.Kind != kindSync || f.FromUser() || f.esrClass() != ecDAbortSame {
		return false
	}
	for _, e := range fixups {
		if uintptr(f.ELR) == e[0] {
			f.ELR = uint64(e[1])
			userFixups.Add(1)
			return true
		}
	}
	return false
}

// UserFixups returns how many faults FixupUserAccess has fixed, for the kernel's statistics.
func UserFixups() uint64 { return userFixups.Load() }
