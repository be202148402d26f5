// User memory: the one way the kernel touches an address user code gave it.
// SPDX-License-Identifier: BSD-3-Clause

package kernel

import "unsafe"

// The kernel and the program share one address space (kernel/mm/doc.go), so user memory is read
// and written with plain loads and stores — after a check. userRange (through the process's
// mm.AddressSpace.UserRange, proc.go)
// makes sure every page of the range lies in a mapping that allows the access, and faults the
// pages in, so that the copy that follows cannot fault in the kernel. The big kernel lock keeps
// another thread from unmapping the range between the check and the copy. A bad pointer is
// EFAULT, never a kernel fault.

// userRange checks n bytes at p for reading, or for writing if write.
func userRange(p, n uintptr, write bool) bool { return userSpace().UserRange(p, n, write) }

// userArray checks an array of n elements of size bytes at p. The byte count is computed without
// overflow: a count whose n*size wraps (gmpos_info with n = 1<<61 once passed a 0-byte check and
// then wrote far past it) is refused here, for every caller.
func userArray(p, n, size uintptr, write bool) bool {
	bytes, ok := arrayBytes(n, size)
	return ok && userRange(p, bytes, write)
}

// arrayBytes is n*size, and false if that overflows a uintptr.
func arrayBytes(n, size uintptr) (uintptr, bool) {
	if size != 0 && n > ^uintptr(0)/size {
		return 0, false
	}
	return n * size, true
}

// ptr turns a kernel or user virtual address into an unsafe.Pointer. The addresses the kernel
// dereferences (user memory checked by userRange, loader structures, FP save areas in kernel
// tables) are never Go heap objects, so the garbage collector need not — and must not — see them
// as pointers; the double conversion keeps go vet's unsafeptr check quiet about a deliberate
// integer→pointer cast.
func ptr(a uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&a)) }

// ptrOf returns the address of a byte in a kernel table.
func ptrOf(b *byte) uintptr { return uintptr(unsafe.Pointer(b)) }

// Loads and stores of checked user memory (or kernel memory).
func load64(a uintptr) uint64     { return *(*uint64)(ptr(a)) }
func load32(a uintptr) uint32     { return *(*uint32)(ptr(a)) }
func store64(a uintptr, v uint64) { *(*uint64)(ptr(a)) = v }
func store32(a uintptr, v uint32) { *(*uint32)(ptr(a)) = v }
func store16(a uintptr, v uint16) { *(*uint16)(ptr(a)) = v }
func store8(a uintptr, v uint8)   { *(*uint8)(ptr(a)) = v }

// userBytes returns checked user memory [p, p+n) as a slice, for copying (never kept).
func userBytes(p, n uintptr) []byte {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(ptr(p)), n)
}

// zeroUser clears checked memory [p, p+n).
func zeroUser(p, n uintptr) {
	b := userBytes(p, n)
	for i := range b {
		b[i] = 0
	}
}

// copyOut copies src to checked user memory at p.
func copyOut(p uintptr, src []byte) { copy(userBytes(p, uintptr(len(src))), src) }

// copyWords copies n bytes (a multiple of 8) between kernel and checked user memory.
func copyWords(dst, src, n uintptr) {
	for i := uintptr(0); i < n; i += 8 {
		store64(dst+i, load64(src+i))
	}
}
